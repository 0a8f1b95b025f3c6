# SPDX-License-Identifier: BSD-2-Clause
# settle compare --plot: each metric's values in the baseline and the
# candidate, as a box plot (median, quartiles, whiskers to 1.5 IQR) with every
# counted value drawn over it. settle sets these variables, then runs it:
#   data                one value a line, in blocks (two blank lines apart): block 2k
#                       the baseline's values of metric k (0..n-1), block 2k+1 the candidate's
#   out, term           the picture to write; "png" or "svg"
#   n                   the number of metrics (panels)
#   metric_1 ...        each panel's metric name; verdict_1 ...: its verdict line
#   overall             the comparison's verdict, the line every report opens with
if (!exists("term")) term = "png"
if (!exists("overall")) overall = ""
h = 300 * n + 60
if (term eq "svg") {
    set terminal svg size 800,h dynamic font "sans,11" noenhanced background "white"
} else {
    set terminal pngcairo size 800,h font "sans,10" noenhanced background "white"
}
set output out
set style data boxplot
set style boxplot outliers pointtype 7
set style fill solid 0.25 border -1
set boxwidth 0.4
set xrange [0.4:2.6]
set xtics ("baseline" 1, "candidate" 2) scale 0
set grid ytics lc rgb "#e4e4e4"
set border 3 lc rgb "#606060"
set ytics nomirror
unset key
set multiplot layout n,1 title "settle compare: " . overall
do for [k = 1:n] {
    set title value(sprintf("metric_%d", k)) . "  -  " . value(sprintf("verdict_%d", k))
    set ylabel "seconds"
    plot data index 2 * k - 2 using (1):1 lc rgb "#1f5fbf", \
         data index 2 * k - 1 using (2):1 lc rgb "#c03030", \
         data index 2 * k - 2 using (1 + 0.3 * (rand(0) - 0.5)):1 with points pt 7 ps 0.8 lc rgb "#303030", \
         data index 2 * k - 1 using (2 + 0.3 * (rand(0) - 0.5)):1 with points pt 7 ps 0.8 lc rgb "#303030"
}
unset multiplot
