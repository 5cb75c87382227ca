/*
 * Telling ThreadSanitizer which shared bytes sbio races on by design.
 *
 * A workload's payload is shared the way a file is: when the threads of a run share one
 * mapping of a file, two of them may copy to and from the same offsets at once, exactly as
 * the kernel copies for two threads' pread and pwrite on one file. Those bytes are the data
 * under test, never a value sbio decides on, so a copy of payload is bracketed by
 * sbio_race_payload_begin/end; every other access stays checked. Without ThreadSanitizer
 * both are empty.
 */
#ifndef SBIO_SANITIZE_H
#define SBIO_SANITIZE_H

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SBIO_TSAN 1
#endif
#endif
#if !defined(SBIO_TSAN) && defined(__SANITIZE_THREAD__)
#define SBIO_TSAN 1
#endif

#ifdef SBIO_TSAN
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#define sbio_race_payload_begin()                                                                  \
    do {                                                                                           \
        AnnotateIgnoreReadsBegin(__FILE__, __LINE__);                                              \
        AnnotateIgnoreWritesBegin(__FILE__, __LINE__);                                             \
    } while (0)
#define sbio_race_payload_end()                                                                    \
    do {                                                                                           \
        AnnotateIgnoreWritesEnd(__FILE__, __LINE__);                                               \
        AnnotateIgnoreReadsEnd(__FILE__, __LINE__);                                                \
    } while (0)
#else
#define sbio_race_payload_begin() ((void)0)
#define sbio_race_payload_end()   ((void)0)
#endif

#endif
