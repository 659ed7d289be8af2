/* A tiny real process that stands in for an evm node in the health-probe bench (bench/healthProbes.ts):
 * run as `besu --config-file=<dir>/besu.toml`, it reads the ports from that file, listens on each
 * (p2p-port, rpc-ws-port and metrics-port too, so the process engine sees it ready as it sees
 * besu) and answers HTTP/1.1 JSON-RPC on 127.0.0.1 with keep-alive: eth_blockNumber -> a height that grows once a
 * second, net_peerCount -> "0x0", anything else -> null. Single-threaded poll() loop, about 1 MiB
 * of RSS, so 500 of them fit where 500 anvils (30+ MiB each) or node processes (40+ MiB) would
 * not. It produces no blocks and speaks no devp2p: it exists to be probed. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXC 64
#define BUF 8192

static const char *KEYS[] = { "rpc-http-port=", "p2p-port=", "rpc-ws-port=", "metrics-port=" };
#define NKEYS 4

/* ports[0] is rpc-http-port; 0 where the file names none. */
static int ports_from_config(const char *path, int ports[NKEYS]) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[512];
  while (fgets(line, sizeof line, f))
    for (int k = 0; k < NKEYS; k++)
      if (strncmp(line, KEYS[k], strlen(KEYS[k])) == 0) ports[k] = atoi(line + strlen(KEYS[k]));
  fclose(f);
  return ports[0] > 0 ? 0 : -1;
}

static int listen_on(int port) {
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 64) < 0) return -1;
  return ls;
}

struct conn { int fd; size_t len; char buf[BUF]; };

/* One flat request object (no nested objects) -> its response object. */
static int one(const char *req, size_t len, char *out, size_t cap) {
  char id[64] = "1";
  const char *p = strstr(req, "\"id\"");
  if (p && (size_t)(p - req) < len) {
    p = strchr(p + 4, ':');
    if (p) {
      p++;
      while (*p == ' ') p++;
      size_t n = 0;
      while (p[n] && p[n] != ',' && p[n] != '}' && n < sizeof id - 1) n++;
      memcpy(id, p, n);
      id[n] = 0;
    }
  }
  char result[64];
  const char *m = strstr(req, "\"method\"");
  if (m && (size_t)(m - req) < len && strncmp(strchr(m + 8, '"') ? strchr(m + 8, '"') : "", "\"eth_blockNumber\"", 17) == 0) snprintf(result, sizeof result, "\"0x%lx\"", (unsigned long)(time(NULL) & 0xffffff));
  else if (m && (size_t)(m - req) < len && strncmp(strchr(m + 8, '"') ? strchr(m + 8, '"') : "", "\"net_peerCount\"", 15) == 0) strcpy(result, "\"0x0\"");
  else strcpy(result, "null");
  return snprintf(out, cap, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}", id, result);
}

/* A request or a batch of them (an array of flat objects). */
static void answer(struct conn *c, const char *body_in, size_t body_len) {
  char body[2048];
  int bl = 0;
  const char *b = body_in;
  while (b < body_in + body_len && (*b == ' ' || *b == '\n' || *b == '\r' || *b == '\t')) b++;
  if (*b == '[') {
    body[bl++] = '[';
    const char *o = b;
    int first = 1;
    while ((o = strchr(o, '{')) && o < body_in + body_len && bl < (int)sizeof body - 200) {
      const char *close = strchr(o, '}');
      if (!close) break;
      if (!first) body[bl++] = ',';
      first = 0;
      bl += one(o, (size_t)(close - o), body + bl, sizeof body - bl - 2);
      o = close + 1;
    }
    body[bl++] = ']';
    body[bl] = 0;
  } else {
    bl = one(body_in, body_len, body, sizeof body);
  }
  char out[2304];
  int ol = snprintf(out, sizeof out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: keep-alive\r\n\r\n%s", bl, body);
  if (write(c->fd, out, ol) < 0) { /* the reader went away: its poll() slot closes next */ }
}

/* Answers every complete request in the buffer; returns 0 to keep the connection. */
static int serve(struct conn *c) {
  for (;;) {
    c->buf[c->len] = 0;
    char *end = strstr(c->buf, "\r\n\r\n");
    if (!end) return c->len >= BUF - 1 ? -1 : 0;
    size_t head = (size_t)(end - c->buf) + 4;
    size_t clen = 0;
    char *cl = strcasestr(c->buf, "content-length:");
    if (cl && cl < end) clen = strtoul(cl + 15, NULL, 10);
    if (head + clen >= BUF) return -1;
    if (c->len < head + clen) return 0;
    char saved = c->buf[head + clen];
    c->buf[head + clen] = 0;
    answer(c, c->buf + head, clen);
    c->buf[head + clen] = saved;
    memmove(c->buf, c->buf + head + clen, c->len - head - clen);
    c->len -= head + clen;
  }
}

int main(int argc, char **argv) {
  const char *config = NULL;
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--config-file=", 14) == 0) config = argv[i] + 14;
    else if (strcmp(argv[i], "--version") == 0) { puts("tiny-rpc-node/1.0"); return 0; }
  }
  int ports[NKEYS] = { 0 };
  if (!config || ports_from_config(config, ports) < 0) { fprintf(stderr, "tiny-rpc-node: no rpc-http-port in %s\n", config ? config : "(no --config-file)"); return 1; }
  signal(SIGPIPE, SIG_IGN);
  int ls[NKEYS], nl = 0;
  for (int k = 0; k < NKEYS; k++) {
    if (ports[k] <= 0) continue;
    if ((ls[nl] = listen_on(ports[k])) < 0) { perror("tiny-rpc-node: listen"); return 1; }
    nl++;
  }
  printf("tiny-rpc-node listening on 127.0.0.1:%d (and %d more ports)\n", ports[0], nl - 1);
  fflush(stdout);
  static struct conn conns[MAXC];
  struct pollfd fds[MAXC + NKEYS];
  int n = 0;
  for (;;) {
    for (int k = 0; k < nl; k++) { fds[k].fd = ls[k]; fds[k].events = POLLIN; }
    for (int i = 0; i < n; i++) { fds[i + nl].fd = conns[i].fd; fds[i + nl].events = POLLIN; }
    if (poll(fds, n + nl, -1) < 0) continue;
    for (int i = n - 1; i >= 0; i--) {
      if (!(fds[i + nl].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t r = read(conns[i].fd, conns[i].buf + conns[i].len, BUF - 1 - conns[i].len);
      if (r <= 0 || (conns[i].len += (size_t)r, serve(&conns[i]) < 0)) {
        close(conns[i].fd);
        conns[i] = conns[n - 1];
        n--;
      }
    }
    for (int k = 0; k < nl; k++) {
      if (!(fds[k].revents & POLLIN)) continue;
      int fd = accept(ls[k], NULL, NULL);
      if (fd < 0) continue;
      if (n == MAXC) close(fd);
      else { conns[n].fd = fd; conns[n].len = 0; n++; }
    }
  }
}
