#include <civetweb.h>
// glibc's mallopt, for the server's limit on malloc arenas (SpeechServer.start): Swift's Glibc module leaves out malloc.h.
#include <malloc.h>
