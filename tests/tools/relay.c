/* The floor for `serve` over stdio: a relay that does nothing but copy bytes between its own
 * stdin/stdout and a child's, with poll(2), read(2) and write(2). tests/tools/bench-host.mjs
 * builds it (cc -O2) and runs it beside `serve`, so the table shows what two extra pipe hops
 * cost on the machine at hand, and how much of serve's figure is serve.
 *
 *   relay ... --server PROGRAM ...   (the arguments of `mcp-gen-ui serve`; only --server counts,
 *                                     and names one program, without arguments)
 */
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int copy(int from, int to) {
  static char buf[1 << 16];
  ssize_t n = read(from, buf, sizeof buf);
  if (n <= 0) return -1;
  for (ssize_t off = 0; off < n;) {
    ssize_t w = write(to, buf + off, (size_t)(n - off));
    if (w <= 0) return -1;
    off += w;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *cmd = NULL;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--server") == 0) cmd = argv[i + 1];
  if (!cmd) return 2;
  int in[2], out[2];
  if (pipe(in) || pipe(out)) return 2;
  pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    execl(cmd, cmd, (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  signal(SIGPIPE, SIG_IGN);
  struct pollfd p[2] = {{0, POLLIN, 0}, {out[0], POLLIN, 0}};
  for (;;) {
    if (poll(p, 2, -1) < 0) continue;
    if (p[0].revents && copy(0, in[1])) break;
    if (p[1].revents && copy(out[0], 1)) break;
  }
  close(in[1]);
  kill(pid, SIGTERM);
  waitpid(pid, NULL, 0);
  return 0;
}
