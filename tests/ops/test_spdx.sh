#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The license line: every tracked source file says
# "SPDX-License-Identifier: BSD-2-Clause" in a comment on its first line
# (on its second after a "#!" line), so that a file copied out of the tree
# (into a firmware, a distribution's patch) still says under what terms.
#
#   - the files are those of `git ls-files` (not the build trees), less the
#     patterns of `excluded` below, each with its reason;
#   - a file without the line fails the test, named;
#   - the checker itself, on a throw-away repository with one file with
#     the line and one without: it names the second, and only it.
#
# usage: test_spdx.sh SOURCE_DIR
# Exit 0 if every check passes, 1 if one fails, 77 when SOURCE_DIR is not a
# git checkout (a release tarball: no list of tracked files) or git is
# missing.
set -Eeuo pipefail

src=$(cd "${1:?usage: test_spdx.sh SOURCE_DIR}" && pwd)

# shellcheck source=../netns/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../netns/checks.sh"

if ! command -v git >/dev/null ||
	! git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "SKIP: $src is not a git checkout: no list of tracked files"
	exit 77
fi

# Files that are not source, as extended regular expressions on the path.
excluded=(
	# prose: the license is in LICENSE and the README's License section
	'\.md$'
	# the license text itself
	'^LICENSE$'
	# a benchmark's results kept with its report: the plots and the data
	# as the run wrote them
	'^tests/[a-z]+/results-[^/]+/'
	# fuzzer inputs: bytes fed to the targets as they are
	'^tests/fuzz/corpus/'
	'^tests/fuzz/regress/'
	# the translator's inputs and the outputs it must give byte for byte
	# (those carry the UCI line numbers of the inputs)
	'^tests/openwrt/cases/'
	# their first two lines are what the test expects ("# expect:", "# check:",
	# "# line:")
	'^tests/openwrt/bad/'
	# Debian files whose format has no comments: the changelog, the
	# machine-readable copyright (it names the license itself) and the
	# one-line source format
	'^debian/changelog$'
	'^debian/copyright$'
	'^debian/source/format$'
)

tag='SPDX-License-Identifier: BSD-2-Clause'
# the comment forms: C, shell/CMake/make/..., Lua, roff
line_re="^(/\\* $tag \\*/|# $tag|-- $tag|\\.\\\\\" $tag)\$"

# missing DIR: the tracked files of DIR without the line, one a line.
missing() {
	local dir=$1 f first pat
	git -C "$dir" ls-files -z | while IFS= read -r -d '' f; do
		for pat in "${excluded[@]}"; do
			[[ $f =~ $pat ]] && continue 2
		done
		# a symlink or a file deleted in the work tree: nothing to read
		[[ -f $dir/$f && ! -L $dir/$f ]] || continue
		first=$(head -n 2 "$dir/$f" | tr -d '\r')
		if [[ $first == '#!'* ]]; then
			first=$(sed -n 2p <<<"$first")
		else
			first=$(sed -n 1p <<<"$first")
		fi
		[[ $first =~ $line_re ]] || printf '%s\n' "$f"
	done
}

tmp=$(mktemp -d /tmp/l3b-spdx.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# the checker on a repository made to fail it
git init -q "$tmp/repo"
printf '#!/bin/sh\n# %s\necho ok\n' "$tag" >"$tmp/repo/good.sh"
printf '/* %s */\nint x;\n' "$tag" >"$tmp/repo/good.c"
printf '#!/bin/sh\necho no line\n# %s\n' "$tag" >"$tmp/repo/late.sh"
printf 'int y;\n' >"$tmp/repo/bare.c"
printf 'raw bytes\n' >"$tmp/repo/notes.md"
git -C "$tmp/repo" add .
got=$(missing "$tmp/repo" | sort | tr '\n' ' ')
if [[ $got == "bare.c late.sh " ]]; then
	ok "checker: names bare.c and late.sh (line missing, line too late), not the good files nor an excluded one"
else
	bad "checker on a made-up repository: got '$got', want 'bare.c late.sh '"
fi

n=$(git -C "$src" ls-files | wc -l)
list=$(missing "$src")
if [[ -z $list ]]; then
	ok "each of the $n tracked files but the excluded has the $tag line"
else
	bad "files without a first line '$tag' (in a comment; after #! if any):"
	printf "%s\n" "$list" | sed "s/^/    /"
fi

tb_done
