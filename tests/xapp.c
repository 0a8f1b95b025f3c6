/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program whose content arrives at a known delay after it starts, for
 * settle record's tests: waits MAP ms, maps a grey window, waits DRAW ms,
 * draws its content, then stays still (or, with --animate, changes a corner
 * every 100 ms forever) until it is killed.
 *
 *   xapp MAP DRAW [--animate] [--fork] [--pidfile FILE]
 *
 * --fork leaves a child process sleeping in the same process group, as a
 * launcher that starts helpers would. --pidfile FILE appends a line
 * "start PID PGID CHILD T" when the program starts and "draw T" once its
 * content is on the X server (T: CLOCK_MONOTONIC seconds), so that a test
 * knows the true load time and which processes must be gone.
 */
#include <X11/Xlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void note(const char *pidfile, const char *fmt, int a, int b, int c, double t)
{
    FILE *f = pidfile ? fopen(pidfile, "a") : NULL;
    if (!f)
        return;
    if (fmt)
        fprintf(f, fmt, a, b, c, t);
    else
        fprintf(f, "draw %.6f\n", t);
    fclose(f);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts))
        ;
}

static unsigned long colour(Display *d, int screen, const char *name)
{
    XColor c, exact;
    if (!XAllocNamedColor(d, DefaultColormap(d, screen), name, &c, &exact))
        return WhitePixel(d, screen);
    return c.pixel;
}

int main(int argc, char **argv)
{
    double t0 = mono();
    if (argc < 3) {
        fprintf(stderr, "usage: xapp MAP_MS DRAW_MS [--animate] [--fork] [--pidfile FILE]\n");
        return 64;
    }
    long map_ms = atol(argv[1]), draw_ms = atol(argv[2]);
    int animate = 0, forks = 0;
    const char *pidfile = NULL;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--animate"))
            animate = 1;
        else if (!strcmp(argv[i], "--fork"))
            forks = 1;
        else if (!strcmp(argv[i], "--pidfile") && i + 1 < argc)
            pidfile = argv[++i];
    }
    pid_t child = 0;
    if (forks && (child = fork()) == 0) {
        for (;;)
            pause();
    }
    note(pidfile, "start %d %d %d %.6f\n", (int)getpid(), (int)getpgrp(), (int)child, t0);
    sleep_ms(map_ms);
    Display *d = XOpenDisplay(NULL);
    if (!d) {
        fprintf(stderr, "xapp: cannot open the display\n");
        return 1;
    }
    int s = DefaultScreen(d);
    Window w = XCreateSimpleWindow(d, RootWindow(d, s), 40, 40, 480, 360, 0, 0,
                                   colour(d, s, "gray50"));
    XSelectInput(d, w, ExposureMask);
    XMapWindow(d, w);
    XEvent ev;
    do
        XNextEvent(d, &ev);
    while (ev.type != Expose);
    XSync(d, False);
    sleep_ms(draw_ms);
    GC gc = XCreateGC(d, w, 0, NULL);
    XSetForeground(d, gc, colour(d, s, "orange"));
    XFillRectangle(d, w, gc, 20, 20, 440, 120);
    XSetForeground(d, gc, colour(d, s, "navy"));
    XFillRectangle(d, w, gc, 20, 160, 200, 180);
    XSync(d, False);
    note(pidfile, NULL, 0, 0, 0, mono());
    for (int k = 0;; k++) {
        if (!animate) {
            pause();
            continue;
        }
        sleep_ms(100);
        XSetForeground(d, gc, colour(d, s, k % 2 ? "red" : "green"));
        XFillRectangle(d, w, gc, 300, 200, 120, 120);
        XSync(d, False);
    }
}
