# patches-lib.sh: what scripts/patches, patches-fold, prepare-tree and
# build-kernel share about the series in patches/ (sourced, not run).
#
# patches/series lists the patch files in order (# starts a comment).
# The patches are `git format-patch -N -B -D --zero-commit --no-signature`
# output, authored as commits: a file they delete or rewrite whole has no
# old text in them (scripts/patches-expand puts it back when applying).
#
# build/patches-base is a throw-away git repository of the base tree (the
# tarball or KERNEL_SRC, as prepare-tree takes it), tag `base`; branch
# `series` is the series applied to it, one commit per patch.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
origin=${KERNEL_SRC:-$tarball}
base=$build/patches-base
pdir=$repo/patches

# The part of the overlay that the series carries (tools/user_events/, the
# demo and the bench, is not mailed)
series_dirs=(kernel include Documentation tools/lib/user_events
	tools/tracing/user_events tools/testing/selftests/user_events)
# Upstream's user_events in the base tree: the series removes it (but for
# tools/testing/selftests/user_events/user_events_selftests.h, which the
# ring-buffer selftests include)
upstream_paths=(kernel/trace/trace_events_user.c include/linux/user_events.h
	include/uapi/linux/user_events.h samples/user_events
	tools/testing/selftests/user_events Documentation/trace/user_events.rst)
kept_upstream=tools/testing/selftests/user_events/user_events_selftests.h

g() { git -C "$base" -c core.autocrlf=false -c advice.detachedHead=false "$@"; }

# The patch files, in order, as paths
series_files() {
	local f
	[ -f "$pdir/series" ] || { echo "patches: no $pdir/series" >&2; return 1; }
	while read -r f _; do
		case $f in '' | '#'*) continue ;; esac
		[ -f "$pdir/$f" ] || { echo "patches: patches/series names $f, not in patches/" >&2; return 1; }
		echo "$pdir/$f"
	done < "$pdir/series"
}

# The files a patch touches
patch_paths() { sed -n 's|^diff --git a/\(\S*\) b/.*|\1|p' "$1" | sort -u; }

# The preparatory patches: those that change only files of the base tree
# that the overlay does not hold (trace.c, ring_buffer.c, ...).
# prepare-tree applies them to the base tree, as the series does.
series_prep() {
	local p f prep own
	own=$(cd "$repo" && git ls-files -co --exclude-standard -- "${series_dirs[@]}")
	for p in $(series_files); do
		prep=1
		for f in $(patch_paths "$p"); do
			case " ${upstream_paths[*]} kernel/trace/Kconfig kernel/trace/Makefile MAINTAINERS " in
			*" $f "* | *" ${f%/*} "*) prep=0 ;;
			esac
			grep -qxF "$f" <<<"$own" && prep=0
		done
		[ $prep = 1 ] && echo "$p"
	done
	return 0
}

make_base() {
	echo "patches: making a git repository of $origin in $base"
	rm -rf "$base" "$base.tmp"
	mkdir -p "$base.tmp"
	if [ -n "${KERNEL_SRC:-}" ]; then
		tar -C "$KERNEL_SRC" --exclude=.git -cf - . | tar -C "$base.tmp" -xf -
	else
		tar -C "$base.tmp" --strip-components=1 -xJf "$tarball"
	fi
	git -C "$base.tmp" init -q -b pristine
	git -C "$base.tmp" add -A -f
	git -C "$base.tmp" -c user.name=base -c user.email=base@localhost \
		commit -q --no-verify -m "Linux base tree: $(basename "$origin")"
	git -C "$base.tmp" tag base
	echo "$origin" > "$base.tmp/.git/ue-origin"
	mv "$base.tmp" "$base"
}

# Commits made here (fold, apply) get this identity; the authors are the patches'
committer_env() {
	local name email
	name=$(git -C "$repo" config user.name || echo "user_events developers")
	email=$(git -C "$repo" config user.email || echo "user-events@localhost")
	export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
	export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
}

# Branch `series`: the series applied to the base tree, one commit per
# patch, with git am. Skipped when the patches are those of the last
# application (their hash in .git/ue-series) and the branch is there.
series_apply() {
	local sum p tip n=0
	[ "$(cat "$base/.git/ue-origin" 2>/dev/null)" = "$origin" ] || make_base
	sum=$(series_files | xargs cat "$pdir/series" "$repo/scripts/patches-expand" | sha256sum | cut -d" " -f1)
	tip=$(g rev-parse -q --verify series || true)
	if [ "$(cat "$base/.git/ue-series" 2>/dev/null)" = "$sum $tip" ]; then
		return 0
	fi
	# commits made by hand on branch series and not written back: kept
	if [ -n "$tip" ] && [ -f "$base/.git/ue-series" ] &&
		[ "$(cut -d' ' -f2 "$base/.git/ue-series")" != "$tip" ]; then
		g branch -f series-unexported series
		echo "patches: branch series of $base had commits not in patches/; kept as" \
			"branch series-unexported (scripts/patches-fold --export writes series to patches/)" >&2
	fi
	rm -f "$base/.git/ue-series"
	g am --abort >/dev/null 2>&1 || true
	g rebase --abort >/dev/null 2>&1 || true
	g checkout -q -f -B series base
	g clean -q -fdx
	committer_env
	for p in $(series_files); do
		n=$((n + 1))
		# the committer date is the author's: the same patches, the same commits
		if ! "$repo/scripts/patches-expand" "$base" < "$p" |
			g am -q --whitespace=nowarn --committer-date-is-author-date >/dev/null 2>"$base/.git/ue-am.log"; then
			cat "$base/.git/ue-am.log" >&2
			g am --abort >/dev/null 2>&1 || true
			echo "patches: ${p#"$repo"/} does not apply (after $((n - 1)) patches)" >&2
			return 1
		fi
	done
	echo "$sum $(g rev-parse series)" > "$base/.git/ue-series"
}

# The tree the series must end at, as a git tree object (no checkout): the
# base tree without upstream's user_events, with the files of the overlay
# under series_dirs, Kconfig.snippet as the USER_EVENTS entry, Makefile.snippet
# as its objects and the
# preparatory patches applied; MAINTAINERS is the series' own (the overlay
# has none).
overlay_tree() {
	local idx=$base/.git/ue-overlay-index own prep
	own=$(cd "$repo" && git ls-files -co --exclude-standard -- "${series_dirs[@]}")
	prep=$(series_prep)
	rm -f "$idx"
	(
		set -e
		export GIT_INDEX_FILE=$idx
		g read-tree base
		g rm -q -r -f --cached --ignore-unmatch -- "${upstream_paths[@]}" >/dev/null
		g ls-tree base -- "$kept_upstream" | g update-index --index-info
		g ls-tree series -- MAINTAINERS | g update-index --index-info
		cd "$repo"
		for f in $own; do
			[ -f "$f" ] || continue
			mode=100644
			[ -x "$f" ] && mode=100755
			printf '%s %s\t%s\n' "$mode" "$(git -C "$base" hash-object -w -- "$repo/$f")" "$f"
		done | g update-index --index-info
		g show base:kernel/trace/Kconfig | "$repo/scripts/kconfig-splice" "$repo/Kconfig.snippet" |
			g hash-object -w --stdin | sed 's|^|100644 |; s|$|\tkernel/trace/Kconfig|' |
			g update-index --index-info
		g show base:kernel/trace/Makefile |
			"$repo/scripts/kconfig-splice" --makefile "$repo/Makefile.snippet" |
			g hash-object -w --stdin | sed 's|^|100644 |; s|$|\tkernel/trace/Makefile|' |
			g update-index --index-info
		for p in $prep; do
			g apply --cached "$p" || { echo "patches: ${p#"$repo"/} does not apply to the base tree" >&2; exit 1; }
		done
		g write-tree
	)
}

# The commits base..series written back to patches/ (and patches/series)
series_export() {
	local tmp=$pdir.tmp c f
	rm -rf "$tmp"
	mkdir -p "$tmp"
	g format-patch -q -N -B -D --zero-commit --no-signature -o "$tmp" base..series
	{
		sed -n '/^#/p' "$pdir/series" 2>/dev/null
		(cd "$tmp" && ls -1 -- *.patch)
	} > "$tmp/series"
	for f in "$pdir"/*.patch; do [ -e "$f" ] && rm -f "$f"; done
	mv "$tmp"/* "$pdir"/
	rmdir "$tmp"
}
