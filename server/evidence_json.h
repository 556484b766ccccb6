#pragma once

// Evidence summaries as JSON, for `kb show --format json`, the index and the API.

#include <nlohmann/json.hpp>

#include "kb/evidence.h"

namespace kb::json {

/// {"oracle", "subject", "summary", "passed", "failed", "errors", "skipped", "runs",
///  "newest_date", "results": [ids; a control lists only its newest], "engines": [{"engine",
///  "version"}], "config": {k: v}}.
nlohmann::json evidence_group(const EvidenceGroup& g);

/// {"state": "reproduced"|"not-reproduced"|"no-evidence", "summary": summary_line(s),
///  "passed", "failed", "errors", "runs", "newest_date" (null when none),
///  "by_oracle": [{"oracle", "passed", "failed", "errors", "runs"}], "groups": [...],
///  "controls": [...], "controls_omitted"}.
nlohmann::json evidence_summary(const EvidenceSummary& s);

}  // namespace kb::json
