#include <civetweb.h>
// glibc's mallopt and malloc_trim, for the server's limit on malloc arenas (SpeechServer.start) and MemoryTrimmer:
// Swift's Glibc module leaves out malloc.h.
#include <malloc.h>
