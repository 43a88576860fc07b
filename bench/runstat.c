/* runstat.c - runs a command (stdout to /dev/null, or to $RUNSTAT_OUT) and
 * prints "wall user sys maxrss_kib" of it on one line to stderr: for
 * machines without /usr/bin/time (bench/device-speed.sh).  Forked from this
 * small process, so the peak RSS is the command's own.  Exit status: the
 * command's (125 when it could not be run). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: runstat CMD [ARG...]\n");
		return 125;
	}
	const char *out = getenv("RUNSTAT_OUT");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(125);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(125);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) < 0)
		return 125;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	fprintf(stderr, "%.4f %.3f %.3f %ld\n", wall, (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
