/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared by the fuzz targets and their regression runner.
 *
 * Each target defines LLVMFuzzerTestOneInput().  Built with clang and
 * -fsanitize=fuzzer it is driven by libFuzzer; built with any compiler and
 * regress_main.c it runs the seeds and the saved crashers once, as a unit
 * test.  A broken property calls FUZZ_CHECK's abort(): libFuzzer saves the
 * input as a crash, the regression runner fails.
 */
#ifndef L3BOND_FUZZ_H
#define L3BOND_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/* Every rule conf_load promises for a struct conf it returns (conf.h,
 * conf/cpe.conf): ranges, names, the ties between keys.  Aborts on the
 * first one broken. */
void fuzz_check_conf(const struct conf *c);

/* The runtime tunables of a and b are equal (k by value: -0.0 == 0.0),
 * and so is everything else (memcmp of the rest). */
bool fuzz_conf_equal(const struct conf *a, const struct conf *b);

/* err is one line of printable text: no control characters, and
 * NUL-terminated within len. */
bool fuzz_one_line(const char *err, size_t len);

#endif
