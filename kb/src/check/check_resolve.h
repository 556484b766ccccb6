#pragma once

// Resolving a deployment against the knowledge base (check_resolve.cpp).

#include <vector>

#include "corpus/vocab.h"
#include "kb/deployment.h"
#include "kb/diagnostic.h"

namespace kb {

/// Resolves `d` in place: engine ids, canonical settings keys and normalised values
/// (`check.unknown-engine`, `check.unknown-setting`, `check.bad-value`: errors, warnings
/// when `allow_unknown`; `check.normalized` notes), then replaces `d.services` by the
/// effective services, each with the engines and settings its facts imply and its model's
/// traits.
void resolve_deployment(Deployment& d, const Corpus& corpus, const Vocabulary& vocab,
                        bool allow_unknown, std::vector<Diagnostic>& diags);

}  // namespace kb
