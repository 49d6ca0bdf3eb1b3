/* Whether a process's memory figures (VmRSS, VmHWM, ru_maxrss) measure
 * what its code allocates, so that a test may bound them: not under
 * AddressSanitizer, whose allocator keeps freed blocks in a quarantine
 * (256 MiB by default) and adds shadow memory.  The bounds are checked by
 * the plain build; a sanitizer build checks the rest of such a test. */
#ifndef SBX_TEST_MEMORY_FIGURES_H
#define SBX_TEST_MEMORY_FIGURES_H

#if defined(__SANITIZE_ADDRESS__)
#define SBX_TEST_MEMORY_FIGURES_HOLD 0
#else
#define SBX_TEST_MEMORY_FIGURES_HOLD 1
#endif

#endif
