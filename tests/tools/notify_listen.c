/*
 * notify_listen.c - plays systemd's part of Type=notify for
 * tests/deploy/run.sh: runs a command with NOTIFY_SOCKET set to a datagram
 * socket of its own and WATCHDOG_USEC to the given period, and checks that
 * it says READY=1, then WATCHDOG=1 at least twice, and STOPPING=1 after
 * SIGTERM (sent once the watchdog was heard twice).
 *
 *   notify_listen WATCHDOG_USEC COMMAND [ARG...]
 *
 * Prints each message; exits 0 when all were heard in order and the
 * command exited 0, 1 otherwise (or after 30 s without them).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: notify_listen WATCHDOG_USEC COMMAND [ARG...]\n");
        return 2;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "/tmp/notify_listen.%ld", (long)getpid());
    unlink(sa.sun_path);
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        perror("notify_listen: socket");
        return 1;
    }
    struct timeval tv = {.tv_sec = 1};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("NOTIFY_SOCKET", sa.sun_path, 1);
        setenv("WATCHDOG_USEC", argv[1], 1);
        execvp(argv[2], argv + 2);
        perror("notify_listen: exec");
        _exit(127);
    }
    int ready = 0, watchdog = 0, stopping = 0;
    time_t end = time(NULL) + 30;
    while (!stopping && time(NULL) < end) {
        char buf[512];
        ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        printf("notify: %s\n", buf);
        if (strstr(buf, "READY=1"))
            ready = 1;
        if (strstr(buf, "WATCHDOG=1") && ready && ++watchdog == 2)
            kill(pid, SIGTERM);
        if (strstr(buf, "STOPPING=1") && watchdog >= 2)
            stopping = 1;
    }
    if (!stopping)
        kill(pid, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    unlink(sa.sun_path);
    int ok = ready && watchdog >= 2 && stopping && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    printf("notify_listen: READY %d, WATCHDOG %d, STOPPING %d, exit status %d: %s\n", ready,
           watchdog, stopping, WIFEXITED(st) ? WEXITSTATUS(st) : -1, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
