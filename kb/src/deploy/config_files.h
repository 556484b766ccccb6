#pragma once

// Config files a service names (a setting record's `file_of`), joined to that service.

#include <optional>
#include <vector>

#include "deploy/reader.h"

namespace kb::deploy {

/// Joins each input of `candidates` (those no reader claimed by content) that a service of
/// `read` names as a config file to that service: its keys become the service's settings,
/// spelled by the file's engine. Returns, per input, whether it was taken as a config
/// file. A name that matches no input, or several, is unread in the naming input.
std::vector<bool> join_config_files(const std::vector<DeployInput>& inputs,
                                    const std::vector<std::size_t>& candidates,
                                    std::vector<std::optional<Facts>>& read, const Context& ctx,
                                    std::vector<Diagnostic>& diags);

}  // namespace kb::deploy
