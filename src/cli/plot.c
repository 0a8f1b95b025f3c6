/* SPDX-License-Identifier: BSD-2-Clause */
/* The gnuplot runner that settle analyze --plot and --report and settle plot
 * use, and the small file helpers they share. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "output.h"
#include "plot.h"

extern char **environ;
/* scripts/plot.gp, compiled in by tools/embed.c */
extern const char settle_plot_gp[];

int plot_have_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/bin:/bin";
    const char *p = path;
    for (;;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char buf[4096];
        if (n + 9 < sizeof(buf)) {
            snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int)n, n ? p : ".");
            struct stat st;
            if (!stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK))
                return 1;
        }
        if (!e)
            return 0;
        p = e + 1;
    }
}

char *plot_temp_file(const char *tag)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + strlen(tag) + 32;
    char *path = malloc(n);
    if (!path)
        return NULL;
    snprintf(path, n, "%s/settle-%s-XXXXXX", dir, tag);
    int fd = mkstemp(path);
    if (fd < 0) {
        int e = errno;
        free(path);
        errno = e;
        return NULL;
    }
    close(fd);
    return path;
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int plot_info_from_json(const char *json, PlotInfo *pi, void **store)
{
    cJSON *o = cJSON_Parse(json);
    *store = o;
    if (!o || !cJSON_IsObject(o))
        return -1;
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
    if (!cJSON_IsString(in))
        return -1;
    pi->name = in->valuestring;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "method");
    pi->method = cJSON_IsString(m) ? m->valuestring : "diff";
    pi->diff_threshold = num(o, "diff_threshold_pixels");
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(o, "settings");
    const cJSON *et = cJSON_GetObjectItemCaseSensitive(set, "entropy-threshold");
    pi->entropy_threshold = cJSON_IsString(et) ? strtod(et->valuestring, NULL) : NAN;
    pi->start = num(o, "start_time");
    pi->stable = num(o, "stable_time");
    pi->load = num(o, "load_time");
    pi->decide = num(cJSON_GetObjectItemCaseSensitive(o, "deciding_change"), "time");
    pi->nregions = 0;
    const cJSON *rg;
    cJSON_ArrayForEach(rg, cJSON_GetObjectItemCaseSensitive(o, "regions")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(rg, "name");
        if (pi->nregions < PLOT_MAX_REGIONS && cJSON_IsString(n)) {
            pi->region_name[pi->nregions] = n->valuestring;
            pi->region_time[pi->nregions++] = num(rg, "stable_time");
        }
    }
    pi->nmarks = 0;
    const cJSON *mk;
    cJSON_ArrayForEach(mk, cJSON_GetObjectItemCaseSensitive(o, "marks")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(mk, "name");
        double t = num(mk, "time");
        if (pi->nmarks < PLOT_MAX_MARKS && cJSON_IsString(n) && isfinite(t)) {
            pi->mark_name[pi->nmarks] = n->valuestring;
            pi->mark_time[pi->nmarks++] = t;
        }
    }
    return 0;
}

void plot_info_free(void **store)
{
    cJSON_Delete(*store);
    *store = NULL;
}

void plot_put_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('\'', f);
}

static void put_number(FILE *f, const char *name, double v, double none)
{
    /* %.17g keeps the value; NaN means none */
    fprintf(f, "%s = %.17g\n", name, isfinite(v) ? v : none);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcasecmp(s + n - m, suffix);
}

/* The variables of scripts/plot.gp, as gnuplot commands (malloc'ed). */
static char *plot_vars(const PlotInfo *pi, const char *csv)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    /* settle's numbers use '.' whatever the locale; so does this text */
    fputs("csv = ", f);
    plot_put_string(f, csv);
    fputs("\nname = ", f);
    plot_put_string(f, pi->name ? pi->name : csv);
    fputs("\nmethod = ", f);
    plot_put_string(f, pi->method ? pi->method : "diff");
    fputc('\n', f);
    put_number(f, "diff_threshold", pi->diff_threshold, 4096);
    put_number(f, "entropy_threshold", pi->entropy_threshold, 0.05);
    put_number(f, "start", pi->start, -1);
    put_number(f, "stable", pi->stable, -1);
    put_number(f, "load", pi->load, -1);
    fprintf(f, "nmarks = %d\n", pi->nmarks);
    for (int i = 0; i < pi->nmarks; i++) {
        char var[32];
        snprintf(var, sizeof(var), "mark_t%d", i + 1);
        put_number(f, var, pi->mark_time[i], -1);
        fprintf(f, "mark_n%d = ", i + 1);
        plot_put_string(f, pi->mark_name[i]);
        fputc('\n', f);
    }
    put_number(f, "decide", pi->decide, -1);
    fprintf(f, "nregions = %d\n", pi->nregions);
    for (int i = 0; i < pi->nregions; i++) {
        char var[32];
        snprintf(var, sizeof(var), "region_t%d", i + 1);
        put_number(f, var, pi->region_time[i], -1);
        fprintf(f, "region_n%d = ", i + 1);
        plot_put_string(f, pi->region_name[i]);
        fputc('\n', f);
    }
    if (fclose(f)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* All of buf into fd (a pipe: a gnuplot that ended takes no more). */
static void write_all(int fd, const char *buf, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t n = write(fd, buf + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        off += (size_t)n;
    }
}

/* The module that writes the plot's PNG inside gnuplot (gnuplot_png.c):
 * beside the program (the build tree), else where it is installed; 0 and its
 * path in buf, or -1 when there is none (gnuplot then writes the PNG itself,
 * the same pixels). */
static int png_module(char *buf, size_t len)
{
#ifdef SETTLE_GNUPLOT_PNG
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n > 0) {
        buf[n] = 0;
        char *slash = strrchr(buf, '/');
        if (slash && (size_t)(slash - buf) + sizeof("/settle-gnuplot-png.so") <= len) {
            strcpy(slash, "/settle-gnuplot-png.so");
            if (!access(buf, R_OK))
                return 0;
        }
    }
    if (strlen(SETTLE_GNUPLOT_PNG) < len && !access(SETTLE_GNUPLOT_PNG, R_OK)) {
        strcpy(buf, SETTLE_GNUPLOT_PNG);
        return 0;
    }
#endif
    (void)buf;
    (void)len;
    return -1;
}

/* gnuplot's environment: settle's, with png_module's path added to
 * LD_PRELOAD (after what it holds). *own is what to free afterwards (NULL
 * when the environment is settle's own). */
static char **gnuplot_env(char ***own)
{
    *own = NULL;
    char mod[4096];
    /* LD_PRELOAD separates its paths by spaces and colons */
    if (png_module(mod, sizeof(mod)) < 0 || strpbrk(mod, " :"))
        return environ;
    size_t n = 0;
    while (environ[n])
        n++;
    const char *old = getenv("LD_PRELOAD");
    size_t plen = sizeof("LD_PRELOAD=") + (old ? strlen(old) + 1 : 0) + strlen(mod);
    char **env = malloc((n + 2) * sizeof(*env));
    char *pre = malloc(plen);
    if (!env || !pre) {
        free(env);
        free(pre);
        return environ;
    }
    snprintf(pre, plen, "LD_PRELOAD=%s%s%s", old && *old ? old : "", old && *old ? ":" : "", mod);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11))
            env[k++] = environ[i];
    env[k++] = pre;
    env[k] = NULL;
    *own = env;
    return env;
}

static void gnuplot_env_free(char **own)
{
    if (!own)
        return;
    for (char **e = own; *e; e++)
        if (!strncmp(*e, "LD_PRELOAD=", 11))
            free(*e);
    free(own);
}

/* The warm gnuplot first draws with the built-in script's PNG terminal and
 * font (when it has them), then goes back to how gnuplot starts (its
 * terminal, no output, every setting reset) and waits for the script. Its
 * picture is small: the terminal and the font are readied all the same (the
 * plot after it costs as much as after a picture of the script's 960x600),
 * and the larger picture's drawing and PNG cost gnuplot about 20 ms of CPU
 * more for nothing; smaller than 200x120, gnuplot warns that it is. */
void plot_warm_start(PlotWarm *w)
{
    memset(w, 0, sizeof(*w));
    w->fd = -1;
    int p[2] = { -1, -1 };
    if (!plot_have_gnuplot() || !(w->errf = plot_temp_file("gperr")) ||
        !(w->warm = plot_temp_file("warm")) || pipe(p))
        goto fail;
    /* no other child (a batch's other workers spawn theirs) holds its input open */
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa))
        goto fail;
    posix_spawn_file_actions_adddup2(&fa, p[0], 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, w->errf, O_WRONLY | O_TRUNC, 0600);
    char *argv[] = { "gnuplot", NULL };
    char **own;
    int sr = posix_spawnp(&w->pid, "gnuplot", &fa, NULL, argv, gnuplot_env(&own));
    gnuplot_env_free(own);
    posix_spawn_file_actions_destroy(&fa);
    close(p[0]);
    p[0] = -1;
    if (sr)
        goto fail;
    w->fd = p[1];
    w->on = 1;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        fputs("set terminal push\nif (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
              "    set terminal pngcairo size 200,120 font \"sans,10\" noenhanced background "
              "\"white\"\n    set output ", m);
        plot_put_string(m, w->warm);
        fputs("\n    plot x\n    set output\n}\nset terminal pop\nreset\n", m);
        if (!fclose(m))
            write_all(w->fd, text, len);
    }
    free(text);
    return;
fail:
    if (p[0] >= 0)
        close(p[0]);
    if (p[1] >= 0)
        close(p[1]);
    plot_warm_stop(w);
}

void plot_warm_stop(PlotWarm *w)
{
    if (w->on) {
        close(w->fd); /* the end of its input: it ends */
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        w->on = 0;
    }
    if (w->errf)
        unlink(w->errf);
    if (w->warm)
        unlink(w->warm);
    free(w->errf);
    free(w->warm);
    w->errf = w->warm = NULL;
}

/* The warm gnuplot loads the script at gp; 0, or -1 when it could not take
 * it (then *pid is not set). */
static int warm_load(PlotWarm *w, const char *gp, pid_t *pid)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return -1;
    fputs("load ", m);
    plot_put_string(m, gp);
    fputc('\n', m);
    if (fclose(m)) {
        free(buf);
        return -1;
    }
    write_all(w->fd, buf, len);
    free(buf);
    close(w->fd);
    w->on = 0;
    *pid = w->pid;
    return 0;
}

/* Runs gnuplot: `vars`, then out and term, then the script (a file, or the
 * built-in text), writing `out` (not renamed). */
static int run_gnuplot(const char *vars, const char *builtin, const char *script,
                       const char *out, int svg, PlotWarm *warm, char *msg, size_t msglen)
{
    int ret = -1;
    int use_warm = warm && warm->on;
    char *gp = plot_temp_file("gp"), *errf = use_warm ? strdup(warm->errf) : plot_temp_file("gperr");
    FILE *f = gp && errf ? fopen(gp, "w") : NULL;
    if (!f) {
        snprintf(msg, msglen, "cannot make a temporary file: %s", strerror(errno));
        goto end;
    }
    fputs(vars, f);
    fputs("out = ", f);
    plot_put_string(f, out);
    fprintf(f, "\nterm = '%s'\n", svg ? "svg" : "png");
    if (script) {
        fputs("load ", f);
        plot_put_string(f, script);
        fputc('\n', f);
    } else {
        fputs(builtin, f);
    }
    if (fclose(f)) {
        snprintf(msg, msglen, "cannot write a temporary file: %s", strerror(errno));
        goto end;
    }
    pid_t pid;
    if (use_warm && warm_load(warm, gp, &pid) == 0)
        goto wait;
    use_warm = 0;
spawn:;
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa)) {
        snprintf(msg, msglen, "out of memory");
        goto end;
    }
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, errf, O_WRONLY | O_TRUNC, 0600);
    char *argv[] = { "gnuplot", gp, NULL };
    char **own;
    int sr = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, gnuplot_env(&own));
    gnuplot_env_free(own);
    posix_spawn_file_actions_destroy(&fa);
    if (sr) {
        snprintf(msg, msglen, sr == ENOENT ? PLOT_NO_GNUPLOT : "cannot run gnuplot: %s",
                 strerror(sr));
        goto end;
    }
    int status;
wait:
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(msg, msglen, "gnuplot: %s", strerror(errno));
            goto end;
        }
    }
    if (use_warm && (!WIFEXITED(status) || WEXITSTATUS(status))) {
        use_warm = 0; /* whatever went wrong, a gnuplot of its own says it */
        goto spawn;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        /* gnuplot's own last line says what went wrong */
        char *text = cli_read_file(errf, NULL);
        char *last = NULL;
        for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n"))
            if (strspn(line, " ^") < strlen(line))
                last = line + strspn(line, " \t"); /* a loaded script's lines are indented */
        snprintf(msg, msglen, "gnuplot failed%s%s", last ? ": " : "", last ? last : "");
        free(text);
        goto end;
    }
    struct stat st;
    if (stat(out, &st) || st.st_size == 0) {
        snprintf(msg, msglen, "gnuplot wrote no picture");
        goto end;
    }
    ret = 0;
end:
    if (gp)
        unlink(gp);
    if (errf)
        unlink(errf);
    free(gp);
    free(errf);
    return ret;
}

/* plot_render, and the picture's bytes in *keep (when not NULL). */
static int render(const char *vars, const char *builtin, const char *script, const char *out,
                  uint8_t **keep, size_t *keep_len, PlotWarm *warm, OutFile *pending, char *msg,
                  size_t msglen)
{
    if (!plot_have_gnuplot()) {
        snprintf(msg, msglen, PLOT_NO_GNUPLOT);
        return -1;
    }
    /* gnuplot draws into a private file; the picture then goes to `out`
     * through the output layer, like every other output */
    char *tmp = plot_temp_file("pic");
    if (!tmp) {
        snprintf(msg, msglen, "cannot make a temporary file: %s", strerror(errno));
        return -1;
    }
    int ret = run_gnuplot(vars, builtin, script, tmp, ends_with(out, ".svg"), warm, msg, msglen);
    size_t len = 0;
    char *pic = ret ? NULL : cli_read_file(tmp, &len);
    if (!ret && !pic) {
        snprintf(msg, msglen, "cannot read the picture back: %s", strerror(errno));
        ret = -1;
    }
    if (!ret && (pending ? out_write_start(pending, out, pic, len) < 0 ||
                               (!pending->tmp && out_commit(pending) < 0)
                         : out_write_file(out, pic, len) < 0)) {
        snprintf(msg, msglen, "%s", strerror(errno));
        ret = -1;
    }
    unlink(tmp);
    free(tmp);
    if (!ret && keep) {
        *keep = (uint8_t *)pic;
        *keep_len = len;
        pic = NULL;
    }
    free(pic);
    return ret;
}

int plot_render(const char *vars, const char *builtin, const char *script, const char *out,
                char *msg, size_t msglen)
{
    return render(vars, builtin, script, out, NULL, NULL, NULL, NULL, msg, msglen);
}

int plot_draw(const PlotInfo *pi, const char *csv, const char *out, const char *script,
              char *msg, size_t msglen)
{
    return plot_draw_keep(pi, csv, out, script, NULL, NULL, NULL, NULL, msg, msglen);
}

int plot_draw_keep(const PlotInfo *pi, const char *csv, const char *out, const char *script,
                   uint8_t **png, size_t *len, PlotWarm *warm, OutFile *pending, char *msg,
                   size_t msglen)
{
    if (pending) {
        memset(pending, 0, sizeof(*pending));
        pending->fd = -1;
    }
    if (png) {
        *png = NULL;
        *len = 0;
    }
    char *vars = plot_vars(pi, csv);
    if (!vars) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    int ret = render(vars, settle_plot_gp, script, out, ends_with(out, ".svg") ? NULL : png, len,
                     warm, pending, msg, msglen);
    free(vars);
    return ret;
}

int plot_draw_png(const PlotInfo *pi, const char *csv, const char *script, uint8_t **png,
                  size_t *len, PlotWarm *warm, char *msg, size_t msglen)
{
    *png = NULL;
    *len = 0;
    if (!plot_have_gnuplot()) {
        snprintf(msg, msglen, PLOT_NO_GNUPLOT);
        return -1;
    }
    char *vars = plot_vars(pi, csv);
    char *tmp = vars ? plot_temp_file("plot") : NULL;
    if (!tmp) {
        snprintf(msg, msglen, vars ? "cannot make a temporary file: %s" : "out of memory",
                 strerror(errno));
        free(vars);
        return -1;
    }
    int ret = run_gnuplot(vars, settle_plot_gp, script, tmp, 0, warm, msg, msglen);
    free(vars);
    if (!ret && !(*png = (uint8_t *)cli_read_file(tmp, len))) {
        snprintf(msg, msglen, "cannot read the plot back: %s", strerror(errno));
        ret = -1;
    }
    unlink(tmp);
    free(tmp);
    return ret;
}
