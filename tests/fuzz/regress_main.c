/* SPDX-License-Identifier: BSD-2-Clause */
/* Runs a fuzz target's LLVMFuzzerTestOneInput() once on each file named
 * or found in the directories named (not recursively; dot files and *.md
 * skipped), in name order, each from an exact-size heap copy.  This is
 * how the seeds and the saved crashers run as a unit test in every build,
 * with or without clang.  A broken property aborts; an unreadable file, or
 * no input at all, fails.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int run_file(const char *file)
{
	uint8_t *buf = NULL;
	size_t size = 0;
	struct stat st;
	int ret = -EIO;
	FILE *f;

	f = fopen(file, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		return -errno;
	}
	if (fstat(fileno(f), &st) || st.st_size < 0) {
		goto out_close;
	}
	size = (size_t)st.st_size;
	buf = malloc(size ? size : 1);
	if (!buf || fread(buf, 1, size, f) != size) {
		fprintf(stderr, "%s: cannot read\n", file);
		goto out_free;
	}
	/* announced first: if the target aborts, this names the input */
	fprintf(stderr, "  %s (%zu bytes)\n", file, size);
	LLVMFuzzerTestOneInput(buf, size);
	ret = 0;
out_free:
	free(buf);
out_close:
	fclose(f);
	return ret;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int skip(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' &&
	       !(n > 3 && !strcmp(d->d_name + n - 3, ".md"));
}

/* Runs every file of dir; returns how many, or -errno. */
static int run_dir(const char *dir)
{
	struct dirent **names;
	char file[4096];
	int i, n, done = 0, ret = 0;

	n = scandir(dir, &names, skip, by_name);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -errno;
	}
	for (i = 0; i < n; i++) {
		snprintf(file, sizeof(file), "%s/%s", dir, names[i]->d_name);
		if (!ret) {
			ret = run_file(file);
			done++;
		}
		free(names[i]);
	}
	free(names);
	return ret ? ret : done;
}

int main(int argc, char **argv)
{
	struct stat st;
	int i, n, total = 0;

	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
		if (n < 0) {
			return 1;
		}
		total += S_ISDIR(st.st_mode) ? n : 1;
	}
	if (!total) {
		fprintf(stderr, "no input: nothing was tested\n");
		return 1;
	}
	printf("%s: %d inputs, every property held\n", argv[0], total);
	return 0;
}
