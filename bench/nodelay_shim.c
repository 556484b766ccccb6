/* LD_PRELOAD shim used by the benchmarks only: sets TCP_NODELAY on every accepted socket,
 * to measure what kb serve does once cpp-httplib's default (Nagle on) is changed, without
 * rebuilding it. Built by benchlib.py when KB_NODELAY_SHIM=1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static void nodelay(int fd) {
  int one = 1;
  if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int accept(int fd, struct sockaddr *addr, socklen_t *len) {
  static int (*real)(int, struct sockaddr *, socklen_t *);
  if (!real) real = (int (*)(int, struct sockaddr *, socklen_t *))dlsym(RTLD_NEXT, "accept");
  int c = real(fd, addr, len);
  nodelay(c);
  return c;
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
  static int (*real)(int, struct sockaddr *, socklen_t *, int);
  if (!real) real = (int (*)(int, struct sockaddr *, socklen_t *, int))dlsym(RTLD_NEXT, "accept4");
  int c = real(fd, addr, len, flags);
  nodelay(c);
  return c;
}
