#include "schema/schema_read.h"

#include "schema/schema_extract.h"
#include "schema/schema_rules.h"
#include "schema/schema_validate.h"

namespace kb::schema {

bool read_record(const yaml::Node& root, Record& r, std::vector<Diagnostic>& diags) {
  Validator check(r.file, diags);
  check.record(root, r.kind, r.id);
  check_rules(root, r.kind, check);
  if (check.errors() > 0) return false;
  extract_record(root, r);
  return true;
}

}  // namespace kb::schema
