# bench/rounds-lib.sh: the summary of interleaved rounds (sourced, not
# run), for the scripts that compare a build before and after
# (approve-latency.sh, cli-start.sh).

# rounds_summary FIGURES TITLE N NOUN [MEDIANS]: FIGURES holds a line
# "LABEL P50 P99" per round and label (before, after).  For each label
# with rounds, the median of its rounds' p50 and p99 and their spread:
#     TITLE summary (LABEL): R rounds of N NOUN; p50 A ms [MIN-MAX] p99
#     B ms [MIN-MAX]
# and, when MEDIANS is named, "LABEL A" appended to it.
rounds_summary() {
	for _label in before after; do
		grep "^$_label " "$1" | awk -v label="$_label" -v title="$2" \
		    -v n="$3" -v noun="$4" -v medians="${5:-}" '
		function med(a, m,	i, j, t) {
			for (i = 1; i <= m; i++)
				for (j = i + 1; j <= m; j++)
					if (a[j] < a[i]) {
						t = a[i]; a[i] = a[j]; a[j] = t
					}
			t = (a[m / 2] + a[m / 2 + 1]) / 2
			if (m % 2)
				t = a[(m + 1) / 2]
			return (t)
		}
		{ m++; p[m] = $2; q[m] = $3 }
		END {
			if (m == 0)
				exit
			a = med(p, m); b = med(q, m)
			printf "%s summary (%s): %d rounds of %d %s; p50 " \
			    "%.2f ms [%.2f-%.2f] p99 %.2f ms [%.2f-%.2f]\n",
			    title, label, m, n, noun, a, p[1], p[m], b, q[1],
			    q[m]
			if (medians != "")
				printf "%s %.3f\n", label, a >> medians
		}'
	done
}
