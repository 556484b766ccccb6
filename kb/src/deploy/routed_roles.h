#pragma once

// Roles a router gives the servers it names by their port.

#include "corpus/vocab.h"
#include "kb/deployment.h"

namespace kb::deploy {

/// vLLM's NIXL P/D runs both sides as `kv_role: kv_both`; its example proxy's
/// `--prefiller-ports 8100 --decoder-ports 8200` is what says which side is which. A
/// service whose `port` setting a router of the same file names through a setting of a
/// role value's `routed_by` takes that role, when nothing else gives it one other than
/// `both` (the connector mode it replaces is kept as not understood, saying why). A port
/// named for two roles gives none.
void routed_roles(Deployment& d, const Vocabulary& vocab);

}  // namespace kb::deploy
