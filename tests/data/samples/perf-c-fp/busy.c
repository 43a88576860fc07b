/* busy.c: a small CPU-bound program for sampled-profile fixtures.
 * Four worker functions with distinct costs, nested calls, one function
 * (spin) reached from three callers and one recursive function (descend).
 * Two threads: the main thread ("busy") runs heavy and middle, a second
 * thread named "worker" runs descend.
 * Build: gcc -O1 -fno-omit-frame-pointer -g -pthread -o busy busy.c
 * Run:   ./busy [scale]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* noipa: no inlining, cloning or hoisting of these calls out of the loops
 * (GCC would otherwise see that the functions are pure and call them once). */
#define NOOPT __attribute__((noipa))

static volatile unsigned long sink;

/* note: called at the end of the loops so that spin and heavy are not leaf
 * functions: GCC 12 sets up no frame pointer in a leaf function that needs
 * no stack, even with -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer,
 * and a frame-pointer unwind would then skip the leaf's caller. */
NOOPT static void note(unsigned long x)
{
    sink ^= x;
}

/* The leaf loop: n rounds of an integer hash. */
NOOPT static unsigned long spin(unsigned long n)
{
    unsigned long x = n | 1;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    note(x);
    return x;
}

/* heavy: the largest share, all of it its own loop. */
NOOPT static unsigned long heavy(unsigned long n)
{
    unsigned long x = 0;
    for (unsigned long i = 0; i < 3 * n; i++)
        x += (x >> 3) ^ i;
    note(x);
    return x;
}

/* light: a small share, calls spin for its work. */
NOOPT static unsigned long light(unsigned long n)
{
    return spin(n);
}

/* middle: some work of its own, then light and spin. */
NOOPT static unsigned long middle(unsigned long n)
{
    unsigned long x = 0;
    for (unsigned long i = 0; i < n; i++)
        x ^= i * 2654435761UL;
    return x + light(n) + spin(n);
}

/* descend: recursive; the bottom frame does the work. */
NOOPT static unsigned long descend(int depth, unsigned long n)
{
    if (depth == 0)
        return spin(n);
    return descend(depth - 1, n) + (unsigned long)depth;
}

static unsigned long n_work;

static void *worker(void *arg)
{
    unsigned long x = 0;
    (void)arg;
    pthread_setname_np(pthread_self(), "worker");
    for (int round = 0; round < 100; round++)
        x += descend(3, n_work + (unsigned long)round);
    return (void *)x;
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    pthread_t t;
    void *ret;
    n_work = (unsigned long)(2000000 * scale);
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    for (int round = 0; round < 100; round++) {
        sink += heavy(n_work + (unsigned long)round);
        sink += middle(n_work + (unsigned long)round);
    }
    pthread_join(t, &ret);
    sink += (unsigned long)ret;
    printf("%lu\n", sink);
    return 0;
}
