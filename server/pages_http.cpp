#include <optional>

#include "http_status.h"
#include "pages.h"
#include "routes.h"

namespace kb::pages {

namespace {

// Longer filter values cannot name anything; cut them before they reach search.
constexpr std::size_t kMaxParamBytes = 512;

std::string param(const httplib::Request& req, const char* name) {
  std::string v = req.get_param_value(name);
  if (v.size() > kMaxParamBytes) v.resize(kMaxParamBytes);
  return v;
}

}  // namespace

void handle(const http::Ctx& c) {
  if (c.svc.renderer == nullptr) {
    throw http::ApiError(http::Problem::not_found, "not-found", "this server serves no pages");
  }
  const SearchParams params{param(c.req, "q"), param(c.req, "engine"), param(c.req, "severity"),
                            param(c.req, "status")};
  // A page without parameters is a function of the snapshot and the path alone, unless
  // its templates are read from --web-dir on every render (being edited).
  const bool reusable = c.svc.responses && params.q.empty() && params.engine.empty() &&
                        params.severity.empty() && params.status.empty() &&
                        c.svc.config.web_dir.empty();
  std::optional<Page> made;
  auto render = [&] { made = c.svc.renderer->serve(make_view(c.snap), c.req.path, params); };
  Page page;
  if (reusable) {
    auto kept = c.svc.responses->get(c.snap.generation(), "page " + c.req.path,
                                     [&]() -> std::optional<std::string> {
                                       render();
                                       if (made->outcome != Outcome::ok) return std::nullopt;
                                       return made->content_type + '\n' + made->body;
                                     });
    if (kept && !made) {
      const auto nl = kept->find('\n');
      page.content_type = kept->substr(0, nl);
      page.body = kept->substr(nl + 1);
    }
  } else {
    render();
  }
  if (made) page = std::move(*made);
  c.res.set_header("Content-Security-Policy", std::string(kContentSecurityPolicy));
  c.res.set_header("X-Frame-Options", "DENY");
  c.res.set_header("Referrer-Policy", "same-origin");
  switch (page.outcome) {
    case Outcome::ok:
      http::send_body(c.res, std::move(page.body), page.content_type);
      break;
    case Outcome::moved:
      http::send_moved(c.res, page.location);
      break;
    case Outcome::not_found:
      http::send_page(c.res, http::Problem::not_found, std::move(page.body), page.content_type);
      break;
  }
}

}  // namespace kb::pages
