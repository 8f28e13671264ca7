#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# trace-dat-dotnames.sh IN.dat OUT.dat
#
# For a collector: writes a copy of a trace-cmd file in which every event
# whose name has a dot (a multi-format user event, NAME.ID) is renamed
# NAME_ID, so that trace-cmd report decodes its records. libtraceevent
# reads an event's name as one identifier and stops at the dot: it drops
# such a format and shows its records as [UNKNOWN EVENT].
#
# The copy is a version 6, uncompressed file (trace-cmd convert); the new
# name has the length of the old one, so no size or offset in the file
# changes. Only a "name:" line followed by "ID:" and "format:" lines is
# rewritten, and only before the data section (its "flyrecord" or
# "latency" tag): the formats come first in such a file, and a record whose
# string looks like a format is left as it was written (fleet_test.sh
# writes one).
# Prints how many formats it renamed on stderr. Needs trace-cmd 3.0 or
# later and perl.

set -e

if [ $# -ne 2 ] || [ "$1" = "$2" ]; then
	echo "usage: trace-dat-dotnames IN.dat OUT.dat (two different files)" >&2
	exit 2
fi
in=$1
out=$2

if [ ! -r "$in" ]; then
	echo "trace-dat-dotnames: cannot read $in" >&2
	exit 1
fi

tmp=$(mktemp "${TMPDIR:-/tmp}/dotnames.XXXXXX")
trap 'rm -f "$tmp"' EXIT

if ! ${TRACE_CMD:-trace-cmd} convert -i "$in" -o "$tmp" --file-version 6 \
		--compression none > /dev/null 2>"$tmp.err"; then
	echo "trace-dat-dotnames: trace-cmd convert failed:" >&2
	cat "$tmp.err" >&2
	rm -f "$tmp.err"
	exit 1
fi
rm -f "$tmp.err"

perl -0777 -e '
	local $_ = <STDIN>;
	my $end = index($_, "flyrecord\0");
	$end = index($_, "latency  \0") if $end < 0;
	die "trace-dat-dotnames: no data section found\n" if $end < 0;
	my $head = substr($_, 0, $end);
	my $name = qr/name: [A-Za-z_][A-Za-z0-9_]*/;
	my $rest = qr/[0-9A-Za-z_]+\nID: [0-9]+\nformat:\n/;
	my $n = $head =~ s/($name)\.($rest)/$1_$2/g;
	print $head, substr($_, $end);
	printf STDERR "trace-dat-dotnames: %d event names with a dot renamed\n", $n || 0;
' < "$tmp" > "$out" || { rm -f "$out"; exit 1; }
