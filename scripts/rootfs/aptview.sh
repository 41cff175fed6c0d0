# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Private apt states ("views"): a directory with a sources.list, lists
# and a cache of its own, through which guestmm's scripts resolve and
# download the packages of any Debian suite without changing the
# machine's apt sources or its package lists.  Sourced by
# scripts/guest/kernel.sh and kernel-next.sh and by scripts/rootfs/*.sh;
# scripts/klp-variant (Python) runs suite_view, view_opts and view_update
# through bash, so there is one implementation of the views.
#
#   debian_mirror SUITE          the URI the machine's apt sources use for
#                                SUITE, else for the machine's own release
#                                (SUITE's -security kind for a -security
#                                suite): one archive serves every release
#   view_sources DIR             write stdin as DIR/sources.list when it
#                                differs (which makes the lists stale)
#   view_opts DIR [STATUS]       apt's options for the view; with STATUS,
#                                a dpkg status file of the caller's (an
#                                image's, or empty) instead of the
#                                machine's, and no binary cache
#   view_update DIR MINUTES      apt-get update, when the lists are older
#                                than MINUTES or the sources changed;
#                                under DIR/.lock, so that two scripts
#                                refresh a view once
#   suite_view SUITE             $CACHE/apt/SUITE: the view of one suite
#                                (a -backports suite with its base suite
#                                beside it), written when missing
#
# The caller defines die.  CACHE defaults to $GUESTMM_CACHE, else
# ~/.cache/guestmm.

: "${CACHE:=${GUESTMM_CACHE:-$HOME/.cache/guestmm}}"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# The first URI the machine's apt sources (deb822 .sources and one-line
# .list files) give for suite $1, if any.
_mirror_for() {
	local want=$1 f files=()
	for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || return 0
	awk -v want="$want" '
	function flush() {
		if (uris != "" && (" " suites " ") ~ (" " want " ") && !found) {
			split(uris, u, " "); print u[1]; found = 1
		}
		uris = ""; suites = ""
	}
	FNR == 1 { flush() }
	FILENAME ~ /\.sources$/ {
		if ($0 ~ /^[ \t]*$/) { flush(); next }
		if ($1 == "URIs:") { $1 = ""; uris = $0 }
		if ($1 == "Suites:") { $1 = ""; suites = $0 }
		next
	}
	/^deb[ \t]/ {
		flush()
		sub(/^deb[ \t]+(\[[^]]*\][ \t]+)?/, "")
		uris = $1; suites = $2; flush()
	}
	END { flush() }
	' "${files[@]}"
}

debian_mirror() {	# debian_mirror SUITE
	local suite=$1 uri host
	uri=$(_mirror_for "$suite")
	if [ -z "$uri" ]; then
		host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
		case $suite in
		*-security) host=$host-security ;;
		esac
		[ -z "${host%-security}" ] || uri=$(_mirror_for "$host")
	fi
	[ -n "$uri" ] || die "no Debian mirror for $suite in /etc/apt/sources.list{,.d}"
	echo "${uri%/}"
}

view_sources() {	# view_sources DIR < sources.list
	local d=$1
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	cat >"$d/sources.list.new"
	if cmp -s "$d/sources.list.new" "$d/sources.list"; then
		rm -f "$d/sources.list.new"
	else
		rm -f "$d/updated"
		mv "$d/sources.list.new" "$d/sources.list"
	fi
}

view_opts() {	# view_opts DIR [STATUS]
	local d=$1 status=${2:-}
	echo "-o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=/dev/null" \
		"-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null" \
		"-o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache" \
		"-o APT::Sandbox::User=root -o APT::Architectures=amd64"
	[ -z "$status" ] ||
		echo "-o Dir::State::status=$status" \
			"-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache="
}

view_update() {	# view_update DIR MINUTES
	local d=$1 age=$2
	[ -z "$(find "$d/updated" -mmin "-$age" 2>/dev/null)" ] || return 0
	(
		flock 8
		[ -z "$(find "$d/updated" -mmin "-$age" 2>/dev/null)" ] || exit 0
		# shellcheck disable=SC2046
		apt-get $(view_opts "$d") -q update >&2 ||
			die "apt-get update failed for the view $d ($(grep -c . "$d/sources.list") sources; a newer release's keys come with debian-archive-keyring)"
		touch "$d/updated"
	) 8>"$d/.lock" || exit 1
}

suite_view() {	# suite_view SUITE
	local s=$1 d=$CACHE/apt/$1 mirror
	if [ ! -s "$d/sources.list" ]; then
		mirror=$(debian_mirror "$s")
		{
			case $s in
			*-backports) echo "deb [signed-by=$KEYRING] $mirror ${s%-backports} main" ;;
			esac
			echo "deb [signed-by=$KEYRING] $mirror $s main"
		} | view_sources "$d"
	fi
	echo "$d"
}
