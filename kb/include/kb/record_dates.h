#pragma once

// When a record was published and last modified, read from its content alone, so every
// replica built from the same files, and every restart, says the same (README, "Change
// feed").

#include <string>
#include <vector>

#include "kb/corpus.h"
#include "kb/dates.h"
#include "kb/evidence.h"
#include "kb/model.h"

namespace kb {

/// A record's dates, YYYY-MM-DD; `modified` is never before `published`.
struct RecordDates {
  std::string published;
  std::string modified;
  bool own = false;  ///< false: the record has no date; both are the knowledge base's date
};

/// The newest valid date written in any record (or its evidence): what an undated record
/// is dated by. "1970-01-01" for a knowledge base without dates.
std::string knowledge_base_date(const Corpus& corpus);

/// The newest valid date written in `r` (evidence aside); "" when it holds none.
std::string newest_date(const Record& r);

/// `r`'s dates. `published`: a gotcha's `created`, a result's `date`, else the earliest
/// date the record holds. `modified`: the latest date the record holds (`updated`,
/// `created`, `as_of`, a result's `date`, its references' `date`/`as_of`, its releases'
/// `date`, its repairs' `date`, and for a gotcha its newest evidencing result). A record
/// holding no date is dated `kb_date` (knowledge_base_date) for both.
RecordDates record_dates(const Record& r, const EvidenceIndex& evidence,
                         const std::string& kb_date);

}  // namespace kb
