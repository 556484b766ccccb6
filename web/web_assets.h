#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace kb::web {

/// Every template and static file compiled into the binary: (path under web/, bytes).
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_assets();

}  // namespace kb::web
