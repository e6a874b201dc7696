/*===- Threads.c - How many threads a parallel loop nest runs on ----------===*\
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* Called by compiled CPU code before each OpenMP parallel region (see        *|
|* tide-omp-team-size). Its own archive member: depends only on the C         *|
|* library.                                                                   *|
\*===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "tide/Runtime/RuntimeSymbols.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

/* 0 until read; racing first calls compute the same values. */
static int32_t environmentThreads = 0; /* -1: TIDE_NUM_THREADS unset */
static int32_t affinityCount = 0;

static int32_t affinityThreads(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int count = CPU_COUNT(&set);
    if (count > 0)
      return count > TIDE_RT_MAX_THREADS ? TIDE_RT_MAX_THREADS : count;
  }
  return 1;
}

/* TIDE_NUM_THREADS, -1 when unset or empty. */
static int32_t readEnvironment(void) {
  const char *text = getenv("TIDE_NUM_THREADS");
  if (!text || !*text)
    return -1;
  char *end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 1 || value > TIDE_RT_MAX_THREADS) {
    fprintf(stderr,
            "tide runtime: error: invalid TIDE_NUM_THREADS '%s'; expected a "
            "whole number of threads from 1 to %d\n",
            text, TIDE_RT_MAX_THREADS);
    fflush(stderr);
    exit(1);
  }
  return (int32_t)value;
}

int32_t tide_rt_cpu_team_size(int64_t work, int64_t grain, int32_t compiled) {
  int32_t threads = __atomic_load_n(&environmentThreads, __ATOMIC_RELAXED);
  if (threads == 0) {
    threads = readEnvironment();
    __atomic_store_n(&environmentThreads, threads, __ATOMIC_RELAXED);
  }
  if (threads < 0 && compiled > 0)
    threads = compiled;
  if (threads < 0) {
    threads = __atomic_load_n(&affinityCount, __ATOMIC_RELAXED);
    if (threads == 0) {
      threads = affinityThreads();
      __atomic_store_n(&affinityCount, threads, __ATOMIC_RELAXED);
    }
  }
  if (threads <= 1 || grain <= 0)
    return 1;
  int64_t useful = work / grain;
  if (useful < 2)
    return 1;
  return useful < threads ? (int32_t)useful : threads;
}
