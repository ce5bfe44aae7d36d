// The CPUs of the calling thread's affinity mask: glibc's CPU_COUNT is a macro behind _GNU_SOURCE, which Swift's
// Glibc module does not see.
#define _GNU_SOURCE
#include <sched.h>

#include "CKernels.h"

int ck_affinity_cpu_count(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}
