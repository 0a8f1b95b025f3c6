# SPDX-License-Identifier: BSD-2-Clause
# settle's plot of a per-frame CSV: changed pixels (log scale) and entropy delta
# over time, each with its threshold, the start and the stable frame marked.
# settle runs it (settle plot, settle analyze --plot) with these variables set;
# copy it, restyle it and give it back with --plot-script FILE.
#   csv, out            the CSV to read, the picture to write
#   term                "png" or "svg"
#   name                the title (the capture)
#   method              "diff" or "entropy": the method that decided
#   diff_threshold      pixels;  entropy_threshold: bits
#   start, stable       seconds from the first frame, negative when there is none
#   load                load time in seconds, negative when there is none
#   nmarks              the app's own marks (--marks) drawn, 0 when none; then
#   mark_t1, mark_n1... each one's time in seconds and name
#   decide              the deciding change's time (the last change that
#                       counted), negative when there is none
#   nregions            the --region areas, 0 when none; then
#   region_t1, region_n1... each one's stable time (negative: none) and name
# By hand:
#   gnuplot -e "csv='a.csv'; out='a.png'; stable=2.5" scripts/plot.gp
if (!exists("term")) term = "png"
if (!exists("name")) name = csv
if (!exists("method")) method = "diff"
if (!exists("diff_threshold")) diff_threshold = 4096
if (!exists("entropy_threshold")) entropy_threshold = 0.05
if (!exists("start")) start = -1
if (!exists("stable")) stable = -1
if (!exists("load")) load = -1
if (!exists("nmarks")) nmarks = 0
if (!exists("decide")) decide = -1
if (!exists("nregions")) nregions = 0

if (term eq "svg") {
    set terminal svg size 960,600 dynamic font "sans,11" noenhanced background "white"
} else {
    set terminal pngcairo size 960,600 font "sans,10" noenhanced background "white"
}
set output out
set datafile separator ","
set datafile columnheaders
stats csv using 2 nooutput
tmax = STATS_max > 0 ? STATS_max : 1
set xrange [0:tmax]
set grid xtics ytics lc rgb "#e4e4e4" lw 1
set border 3 lc rgb "#606060"
set tics nomirror
set key top right opaque box lc rgb "#c8c8c8"
set lmargin at screen 0.09
set rmargin at screen 0.97

start_c = "#de640d"
stable_c = "#2a9d3f"
title = name . (load >= 0 ? sprintf("  -  load time %.3f s", load) : "  -  no stable frame")
set multiplot layout 2,1 title title font ",13"

# vertical lines at the start and the stable frame, with their times
if (start >= 0) {
    set arrow 1 from start, graph 0 to start, graph 1 nohead lc rgb start_c lw 2 dt 3 front
    set label 1 sprintf("start %.3f s", start) at start, graph 0.08 offset 0.6,0 tc rgb start_c front
}
if (stable >= 0) {
    set arrow 2 from stable, graph 0 to stable, graph 1 nohead lc rgb stable_c lw 2 front
    set label 2 sprintf("stable %.3f s", stable) at stable, graph 0.92 offset 0.6,0 tc rgb stable_c front
}

# the app's own marks: thin dashed lines, their names up the line
mark_c = "#1f77b4"
if (nmarks > 0) {
    do for [i=1:nmarks] {
        mt = value(sprintf("mark_t%d", i))
        set arrow (10 + i) from mt, graph 0 to mt, graph 1 nohead lc rgb mark_c lw 1.5 dt 4 front
        set label (10 + i) value(sprintf("mark_n%d", i)) at mt, graph 0.04 offset -0.8,0 rotate by 90 tc rgb mark_c font ",8" front
    }
}

# the deciding change (the colour of its outline in the report): a line of
# its own when it is not the stable frame's (under --settle), its label always
decide_c = "#e8175d"
if (decide >= 0) {
    if (abs(decide - stable) > 1e-6) {
        set arrow 3 from decide, graph 0 to decide, graph 1 nohead lc rgb decide_c lw 1.5 dt 2 front
    }
    if (decide > 0.7 * tmax) {
        set label 3 sprintf("deciding change %.3f s", decide) at decide, graph 0.84 right offset -0.6,0 tc rgb decide_c front
    } else {
        set label 3 sprintf("deciding change %.3f s", decide) at decide, graph 0.84 offset 0.6,0 tc rgb decide_c front
    }
}

# each --region's stable time, its name up the line (teal, as in the report)
region_c = "#0a9396"
if (nregions > 0) {
    do for [i=1:nregions] {
        rt = value(sprintf("region_t%d", i))
        if (rt >= 0) {
            set arrow (40 + i) from rt, graph 0 to rt, graph 1 nohead lc rgb region_c lw 1.5 dt 5 front
            set label (40 + i) sprintf("%s %.3f s", value(sprintf("region_n%d", i)), rt) at rt, graph 0.5 offset -0.8,0 rotate by 90 tc rgb region_c font ",8" front
        }
    }
}

set tmargin at screen 0.90
set bmargin at screen 0.53
set logscale y
set yrange [0.8:*]
set format y "%.0s%c"
set ylabel (method eq "diff" ? "changed pixels (decides)" : "changed pixels")
set format x ""
plot csv using 2:($3 + 1) with steps lc rgb "#1f5fbf" lw 1.5 title "changed pixels + 1", \
     csv using 2:($8 > 0 ? $3 + 1 : 1/0) with points pt 7 ps 1.3 lc rgb "#606060" title "codec refresh (ignored)", \
     diff_threshold with lines dt 2 lw 1.5 lc rgb "#c03030" title sprintf("threshold %g", diff_threshold)

set tmargin at screen 0.45
set bmargin at screen 0.08
set yrange [1e-4:*]
set format y "%g"
set format x "%g"
set ylabel (method eq "entropy" ? "entropy delta, bits (decides)" : "entropy delta, bits")
set xlabel "time (s)"
plot csv using 2:($5 > 1e-4 ? $5 : 1e-4) with steps lc rgb "#7a3fbf" lw 1.5 title "entropy delta", \
     entropy_threshold with lines dt 2 lw 1.5 lc rgb "#c03030" title sprintf("threshold %g", entropy_threshold)
unset multiplot
