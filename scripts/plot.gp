# SPDX-License-Identifier: BSD-2-Clause
# Frame differences of a settle CSV over time, with the threshold and the
# stable frame. Variables: csv, out (PNG), stable (seconds), threshold (pixels).
# gnuplot -e "csv='a.csv'; out='a.png'; stable=2.5; threshold=4096" scripts/plot.gp
set terminal pngcairo size 960,540 font ",10" noenhanced
set output out
set datafile separator ","
set key autotitle columnhead top right
set multiplot layout 2,1 title csv
set logscale y
set yrange [0.8:*]
set ylabel "changed pixels"
set arrow 1 from stable, graph 0 to stable, graph 1 nohead lc rgb "#2a9d3f" lw 2
set label 1 sprintf("stable %.3f s", stable) at stable, graph 0.92 offset 0.5,0 tc rgb "#2a9d3f"
plot csv using 2:($3+1) with steps lc rgb "#1f5fbf" title "diff_pixels + 1", \
     threshold with lines dt 2 lc rgb "#c03030" title "threshold"
set yrange [1e-4:*]
set ylabel "entropy delta (bits)"
set xlabel "time (s)"
plot csv using 2:($5 > 1e-4 ? $5 : 1e-4) with steps lc rgb "#7a3fbf" title "entropy_delta", \
     0.05 with lines dt 2 lc rgb "#c03030" title "0.05"
unset multiplot
