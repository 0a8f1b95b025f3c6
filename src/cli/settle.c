/* SPDX-License-Identifier: BSD-2-Clause */
/* The settle program: argv, terminal output and exit codes over the library. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settle/settle.h"
#include "output.h"

/* Exit codes; with several captures the highest applies. */
enum {
    EXIT_OK = 0,
    EXIT_NOT_STABLE = 1, /* analysed, but no stable frame or no start was found */
    EXIT_PARTIAL = 2,    /* a capture was damaged or cut short; its result is partial */
    EXIT_INPUT = 3,      /* a capture could not be analysed at all */
    EXIT_OUTPUT = 4,     /* a result could not be written */
    EXIT_USAGE = 64,     /* invalid command line */
    EXIT_INTERNAL = 70,  /* out of memory or another internal failure */
    EXIT_SIGNAL = 130    /* interrupted by SIGINT or SIGTERM; results written are partial */
};

static SettleContext *volatile g_ctx;
static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
    if (g_ctx)
        settle_interrupt(g_ctx);
}

static void log_cb(void *opaque, SettleLogLevel level, const char *msg)
{
    (void)opaque;
    fprintf(stderr, "settle: %s%s\n", level == SETTLE_LOG_WARNING ? "warning: " : "", msg);
}

static void usage_analyze(FILE *f)
{
    fprintf(f,
            "usage: settle analyze [OPTIONS] CAPTURE...\n"
            "\n"
            "Measures every frame of each capture and reports when the screen became stable:\n"
            "  CAPTURE: stable at T s (frame N of M), load time L s [METHOD]\n"
            "\n"
            "Outputs:\n"
            "  --csv FILE        per-frame measures as CSV ('-' = stdout); with several\n"
            "                    captures FILE must contain %%n (the capture's name) or be '-'\n"
            "  --json FILE       one JSON summary a line per capture ('-' = stdout)\n"
            "  -q, --quiet       no summary lines\n"
            "  -v, --verbose     more messages, including the decoder's\n"
            "\n"
            "Analysis:\n");
    for (const SettleOption *o = settle_options(); o->name; o++) {
        char head[96];
        snprintf(head, sizeof(head), "--%s %s", o->name, o->arg);
        if (strlen(head) > 28)
            fprintf(f, "  %s\n  %-28s %s (default %s)\n", head, "", o->help, o->dflt);
        else
            fprintf(f, "  %-28s %s (default %s)\n", head, o->help, o->dflt);
    }
    fprintf(f,
            "\n"
            "Exit codes (with several captures the highest applies):\n"
            "  0 stable frame found   1 no stable frame or no start found\n"
            "  2 partial: capture damaged or cut short, result marked partial\n"
            "  3 capture could not be analysed   4 result could not be written\n"
            "  64 invalid command line   70 internal error   130 interrupted\n");
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: settle COMMAND [OPTIONS] ...\n"
            "\n"
            "Commands:\n"
            "  analyze CAPTURE...   report when each capture's screen became stable\n"
            "  help [COMMAND]       this text, or a command's options\n"
            "  version              print the version\n"
            "\n"
            "Run 'settle help analyze' for the analysis options.\n");
}

/* The capture's name for %n: its base name without the extension. */
static char *csv_name(const char *pattern, const char *input)
{
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    size_t blen = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        blen = (size_t)(dot - base);
    size_t cap = strlen(pattern) + 1;
    for (const char *p = pattern; (p = strstr(p, "%n")); p += 2)
        cap += blen;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    char *w = out;
    for (const char *p = pattern; *p;) {
        if (p[0] == '%' && p[1] == 'n') {
            memcpy(w, base, blen);
            w += blen;
            p += 2;
        } else {
            *w++ = *p++;
        }
    }
    *w = 0;
    return out;
}

static void fmt_time(char *buf, size_t n, double t)
{
    if (isfinite(t))
        snprintf(buf, n, "%.3f s", t);
    else
        snprintf(buf, n, "-");
}

static int worse(int a, int b)
{
    return a > b ? a : b;
}

/* Exit code for one capture's outcome. */
static int outcome_code(int ret)
{
    switch (ret) {
    case 0: return EXIT_OK;
    case SETTLE_ERR_NOT_STABLE:
    case SETTLE_ERR_NO_START: return EXIT_NOT_STABLE;
    case SETTLE_ERR_DECODE: return EXIT_PARTIAL;
    case SETTLE_ERR_INTERRUPTED: return EXIT_SIGNAL;
    case SETTLE_ERR_NOMEM:
    case SETTLE_ERR_STATE:
    case SETTLE_ERR_INVAL: return EXIT_INTERNAL;
    default: return EXIT_INPUT;
    }
}

static int cmd_analyze(int argc, char **argv)
{
    SettleSettings s;
    settle_default_settings(&s);
    const char *csv = NULL, *json = NULL;
    int quiet = 0, verbose = 0;
    char err[256];

    enum { OPT_CSV = 1000, OPT_JSON, OPT_TABLE };
    int ntable = 0;
    const SettleOption *table = settle_options();
    while (table[ntable].name)
        ntable++;
    struct option *longopts = calloc((size_t)ntable + 6, sizeof(*longopts));
    if (!longopts) {
        fprintf(stderr, "settle: out of memory\n");
        return EXIT_INTERNAL;
    }
    int k = 0;
    longopts[k++] = (struct option){ "csv", required_argument, NULL, OPT_CSV };
    longopts[k++] = (struct option){ "json", required_argument, NULL, OPT_JSON };
    longopts[k++] = (struct option){ "quiet", no_argument, NULL, 'q' };
    longopts[k++] = (struct option){ "verbose", no_argument, NULL, 'v' };
    longopts[k++] = (struct option){ "help", no_argument, NULL, 'h' };
    for (int i = 0; i < ntable; i++)
        longopts[k++] = (struct option){ table[i].name, required_argument, NULL, OPT_TABLE + i };

    int ret = EXIT_OK, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+qvh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_CSV: csv = optarg; break;
        case OPT_JSON: json = optarg; break;
        case 'q': quiet = 1; break;
        case 'v': verbose++; break;
        case 'h':
            usage_analyze(stdout);
            free(longopts);
            return EXIT_OK;
        case '?':
        case ':':
            if (optopt)
                fprintf(stderr, "settle: -%c: unknown option or missing value; see 'settle help analyze'\n",
                        optopt);
            else
                fprintf(stderr, "settle: %s: unknown option or missing value; see 'settle help analyze'\n",
                        argv[optind - 1]);
            free(longopts);
            return EXIT_USAGE;
        default:
            if (c >= OPT_TABLE && c < OPT_TABLE + ntable) {
                const char *name = table[c - OPT_TABLE].name;
                if (settle_settings_set(&s, name, optarg, err, sizeof(err)) < 0) {
                    fprintf(stderr, "settle: --%s: %s\n", name, err);
                    free(longopts);
                    return EXIT_USAGE;
                }
            }
        }
    }
    free(longopts);
    int ninputs = argc - optind;
    char **inputs = argv + optind;
    if (ninputs < 1) {
        fprintf(stderr, "settle: analyze: no capture given; see 'settle help analyze'\n");
        return EXIT_USAGE;
    }
    if (csv && strcmp(csv, "-") && ninputs > 1 && !strstr(csv, "%n")) {
        fprintf(stderr, "settle: --csv: several captures need a file name with %%n "
                        "(the capture's name) or '-', got '%s'\n", csv);
        return EXIT_USAGE;
    }
    if (csv && json && !strcmp(csv, "-") && !strcmp(json, "-")) {
        fprintf(stderr, "settle: --csv and --json cannot both go to stdout\n");
        return EXIT_USAGE;
    }
    if (settle_settings_check(&s, err, sizeof(err)) < 0) {
        fprintf(stderr, "settle: %s\n", err);
        return EXIT_USAGE;
    }
    s.log_cb = log_cb;
    s.log_level = verbose ? SETTLE_LOG_INFO : SETTLE_LOG_WARNING;
    settle_codec_log_level(verbose > 1 ? SETTLE_LOG_WARNING : verbose ? SETTLE_LOG_ERROR : -1);
    /* the summary moves to stderr when stdout carries data */
    FILE *summary = (csv && !strcmp(csv, "-")) || (json && !strcmp(json, "-")) ? stderr : stdout;

    SettleContext *ctx = NULL;
    if (settle_open(&ctx, &s) < 0) {
        fprintf(stderr, "settle: out of memory\n");
        return EXIT_INTERNAL;
    }
    g_ctx = ctx;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    OutFile jout = { 0 };
    if (json && out_open(&jout, json) < 0) {
        fprintf(stderr, "settle: --json: %s: %s\n", json, strerror(errno));
        settle_close(&ctx);
        return EXIT_OUTPUT;
    }
    for (int i = 0; i < ninputs && !g_stop; i++) {
        const char *in = inputs[i];
        const SettleResult *r = NULL;
        int ar = settle_analyze_file(ctx, in, &r);
        if (g_stop && ar != SETTLE_ERR_INTERRUPTED && r && r->partial)
            ar = SETTLE_ERR_INTERRUPTED;
        ret = worse(ret, outcome_code(ar));
        const char *method = r ? settle_method_name(r->method) : "?";
        if (r && r->stable_frame >= 0) {
            char st[32], lt[32];
            fmt_time(st, sizeof(st), r->stable_time);
            fmt_time(lt, sizeof(lt), r->load_time);
            if (!quiet)
                fprintf(summary, "%s: stable at %s (frame %lld of %lld), load time %s [%s]%s\n", in,
                        st, (long long)r->stable_frame, (long long)r->frames, lt, method,
                        r->partial ? " (partial)" : "");
        }
        if (ar < 0 && r && r->error_message)
            fprintf(stderr, "settle: %s: %s%s\n", in, r->error_message,
                    r->partial ? " (result partial)" : "");
        else if (ar < 0)
            fprintf(stderr, "settle: %s: %s\n", in, settle_strerror(ar));
        if (verbose && r && r->frames > 1)
            fprintf(stderr, "settle: %s: method %s: %s\n", in, method, r->method_reason);

        if (jout.f && settle_write_json(ctx, jout.f) < 0) {
            fprintf(stderr, "settle: --json: %s: cannot write: %s\n", json, strerror(errno));
            ret = worse(ret, EXIT_OUTPUT);
        }
        if (csv && r && r->frames > 0) {
            char *name = strcmp(csv, "-") ? csv_name(csv, in) : NULL;
            OutFile cout;
            if (strcmp(csv, "-") && !name) {
                fprintf(stderr, "settle: out of memory\n");
                ret = worse(ret, EXIT_INTERNAL);
            } else if (out_open(&cout, name ? name : "-") < 0) {
                fprintf(stderr, "settle: --csv: %s: %s\n", name, strerror(errno));
                ret = worse(ret, EXIT_OUTPUT);
            } else if (settle_write_csv(ctx, cout.f) < 0 || out_commit(&cout) < 0) {
                fprintf(stderr, "settle: --csv: %s: cannot write: %s\n", name ? name : "stdout",
                        strerror(errno));
                out_abort(&cout);
                ret = worse(ret, EXIT_OUTPUT);
            }
            free(name);
        }
    }
    if (jout.f && out_commit(&jout) < 0) {
        fprintf(stderr, "settle: --json: %s: cannot write: %s\n", json, strerror(errno));
        out_abort(&jout);
        ret = worse(ret, EXIT_OUTPUT);
    }
    g_ctx = NULL;
    settle_close(&ctx);
    if (g_stop)
        ret = worse(ret, EXIT_SIGNAL);
    return ret;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "analyze"))
        return cmd_analyze(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("settle %s\n", SETTLE_VERSION);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        if (argc > 2 && !strcmp(argv[2], "analyze"))
            usage_analyze(stdout);
        else
            usage(stdout);
        return EXIT_OK;
    }
    fprintf(stderr, "settle: unknown command '%s'; try 'settle help'\n", cmd);
    return EXIT_USAGE;
}
