// A records folder kb cannot read is an error, never gotchas that silently vanish from
// `kb check`. Tests run as root, where permission bits stop no read, so the unreadable
// folder is listed by kb run as nobody (setpriv); a link to a directory is refused for
// everyone.

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include "cli_support.h"

using namespace kb_test;

namespace {

std::string q(const fs::path& p) {
  return "'" + p.string() + "'";
}

// `kb ARGS` as a user for whom permission bits count: nobody when the tests run as root.
Run kb_unprivileged(const fs::path& dir, const std::string& args) {
  if (::geteuid() != 0) return kb(dir, args);
  const fs::path script = dir / "run.sh";
  spit(script, std::string("exec setpriv --reuid=65534 --regid=65534 --clear-groups '") +
                   KB_BINARY + "' " + args + " </dev/null >'" + (dir / "stdout").string() +
                   "' 2>'" + (dir / "stderr").string() + "'\n");
  const int status = std::system(("sh '" + script.string() + "'").c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "stdout");
  r.err = slurp(dir / "stderr");
  return r;
}

fs::path records_copy(const fs::path& dir) {
  const fs::path out = dir / "records";
  fs::copy(fs::path(KB_TEST_DATA) / "check" / "records", out, fs::copy_options::recursive);
  return out;
}

const fs::path kDeployment = fs::path(KB_TEST_DATA) / "deployments" / "prefix-caching.yaml";

}  // namespace

TEST_CASE("a records folder kb cannot list is an error for kb lint and kb check",
          "[cli][lint][check][budget]") {
  auto dir = scratch("records_unreadable");
  ::chmod(dir.c_str(), 0755);  // nobody reaches the tree
  const fs::path records = records_copy(dir);
  // The deployment too is copied where the unprivileged user can read it: the source tree
  // may sit in a directory only its owner can enter (a clone in `mktemp -d`).
  const fs::path deployment = dir / "prefix-caching.yaml";
  fs::copy_file(kDeployment, deployment, fs::copy_options::overwrite_existing);
  const std::string lint = "lint --today 2026-11-30 --records " + q(records);
  const std::string check = "check " + q(deployment) + " --records " + q(records);
  REQUIRE(kb_unprivileged(dir, lint).code == 0);
  REQUIRE(kb_unprivileged(dir, check).code == 1);

  fs::create_directories(records / "gotchas" / "private");
  spit(records / "gotchas" / "private" / "hidden-away.yaml", kGotcha);
  ::chmod((records / "gotchas" / "private").c_str(), 0);
  Run linted = kb_unprivileged(dir, lint);
  ::chmod((records / "gotchas" / "private").c_str(), 0755);
  CHECK(linted.code == 1);
  CHECK(linted.out.find("gotchas/private/: error[io.read]: cannot read the directory: Permission "
                        "denied; the records under it are not loaded\n") != std::string::npos);

  ::chmod((records / "gotchas" / "private").c_str(), 0);
  Run checked = kb_unprivileged(dir, check);
  ::chmod((records / "gotchas" / "private").c_str(), 0755);
  CHECK(checked.code == 2);
  CHECK(checked.err.find(records.string() + ": error[check.records-invalid]: the knowledge base "
                                            "has 1 lint errors") != std::string::npos);
}

TEST_CASE("a link to a directory in a records tree is an error, not a silent gap",
          "[cli][lint][budget]") {
  auto dir = scratch("records_dir_link");
  const fs::path records = records_copy(dir);
  fs::create_directories(dir / "elsewhere");
  fs::create_directory_symlink("../../elsewhere", records / "gotchas" / "linked");
  Run linted = kb(dir, "lint --today 2026-11-30 --records " + q(records));
  CHECK(linted.code == 1);
  CHECK(linted.out.find("gotchas/linked/: error[io.read]: cannot read the directory: it is a link "
                        "to a directory, which kb does not follow in a records tree; the records "
                        "under it are not loaded\n") != std::string::npos);
  Run checked = kb(dir, "check " + q(kDeployment) + " --records " + q(records));
  CHECK(checked.code == 2);
  CHECK(checked.err.find("error[check.records-invalid]") != std::string::npos);
}
