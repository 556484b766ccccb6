// kb_toy_openai_server: the toy OpenAI-compatible server of the oracle tests as a
// process. Prints "listening on PORT" once it accepts connections; stops on SIGTERM/SIGINT.
//
//   kb_toy_openai_server [--port N] [--model NAME] [--version V] [--no-version] [--sglang] [--metrics TEXT]
//                        [--no-token-ids] [--report-cached-tokens] [--ignore-salt]
//                        [--salt-field NAME]
//                        [--fault KIND[:MATCH[:ARG]]]...

#include <signal.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "toy_server.h"

int main(int argc, char** argv) {
  kb_toy::ToyOptions options;
  int port = 0;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
        return argv[++i];
      };
      if (a == "--port")
        port = std::stoi(value());
      else if (a == "--model")
        options.model = value();
      else if (a == "--version")
        options.version = value();
      else if (a == "--no-version")
        options.version_route = false;
      else if (a == "--sglang")
        options.sglang = true;
      else if (a == "--metrics")
        options.metrics = value() + "\n";
      else if (a == "--no-token-ids")
        options.token_ids = false;
      else if (a == "--report-cached-tokens")
        options.report_cached = true;
      else if (a == "--ignore-salt")
        options.ignore_salt = true;
      else if (a == "--salt-field")
        options.salt_field = value();
      else if (a == "--fault")
        options.faults.push_back(kb_toy::parse_fault(value()));
      else
        throw std::invalid_argument("unknown argument " + a);
    }
  } catch (const std::exception& e) {
    std::cerr << "kb_toy_openai_server: " << e.what() << "\n";
    return 2;
  }
  // Signals wait for sigwait below, in this thread, not in the server's.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  kb_toy::ToyServer server(options);
  const int bound = server.start(port);
  std::printf("listening on %d\n", bound);
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  server.stop();
  return 0;
}
