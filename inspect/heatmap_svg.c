/* heatmap_svg.c — the rank-to-rank heat maps of relay-dump --svg (see
 * dump.h): the volume a plan moves and, with --stats, the seconds a
 * replay spent on each pair, side by side.  Colours follow the viridis
 * map on a log scale from the smallest to the largest non-zero cell;
 * cells without traffic stay light grey.  Cells carry a tooltip while
 * there are at most 64 bins. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "dump.h"

enum {
    PLOT_PX = 640,           /* the plot is at most this wide and high */
    LEFT = 90, TOP = 112, RIGHT = 190, BOTTOM = 40,
    PANEL_HEADING_Y = 66,    /* a panel's heading, when two are side by side */
    LEGEND_GAP = 28, LEGEND_WIDTH = 18, LEGEND_TICKS = 5,
    MAX_AXIS_LABELS = 16,
    TOOLTIP_MAX_BINS = 64,
    LABEL_MIN_CELL_PX = 48   /* cells at least this wide also show their bytes */
};

static const char no_traffic_colour[] = "#e8e8e8";

/* ---- the matrix ------------------------------------------------------- */

int volume_matrix_init(volume_matrix *m, int nranks, cli_error *e)
{
    m->nranks = nranks;
    m->bin_ranks = (nranks + VOLUME_MAX_BINS - 1) / VOLUME_MAX_BINS;
    if (m->bin_ranks < 1) m->bin_ranks = 1;
    m->nbins = (nranks + m->bin_ranks - 1) / m->bin_ranks;
    m->seconds = 0;
    m->bytes = calloc((size_t)m->nbins * (size_t)m->nbins + 1, sizeof *m->bytes);
    return m->bytes ? CLI_OK : cli_fail(e, CLI_FAILED, "out of memory for the volume matrix");
}

void volume_matrix_add(volume_matrix *m, int from, int to, double bytes)
{
    m->bytes[(size_t)(from / m->bin_ranks) * (size_t)m->nbins + (size_t)(to / m->bin_ranks)] += bytes;
}

void volume_matrix_free(volume_matrix *m)
{
    free(m->bytes);
    m->bytes = NULL;
}

/* A cell's value for people: "1.5 MiB", or "0.213 ms". */
typedef struct {
    char text[32];
} value_text;

static value_text text_of(const volume_matrix *m, double v)
{
    value_text t;
    if (!m->seconds) snprintf(t.text, sizeof t.text, "%s", cli_bytes((int64_t)llround(v)).text);
    else if (v >= 1) snprintf(t.text, sizeof t.text, "%.3g s", v);
    else if (v >= 1e-3) snprintf(t.text, sizeof t.text, "%.3g ms", v * 1e3);
    else snprintf(t.text, sizeof t.text, "%.3g us", v * 1e6);
    return t;
}

/* ---- colours ---------------------------------------------------------- */

typedef struct {
    double lo, hi;           /* smallest and largest non-zero cell (0, 0: none) */
} value_range;

static value_range nonzero_range(const volume_matrix *m)
{
    value_range r = {0, 0};
    for (size_t i = 0; i < (size_t)m->nbins * (size_t)m->nbins; i++) {
        double v = m->bytes[i];
        if (v <= 0) continue;
        if (r.hi == 0 || v < r.lo) r.lo = v;
        if (v > r.hi) r.hi = v;
    }
    return r;
}

/* Position of v in [0, 1] on the log scale of r. */
static double scale_position(value_range r, double v)
{
    if (r.hi <= r.lo) return 1.0;
    return (log(v) - log(r.lo)) / (log(r.hi) - log(r.lo));
}

static const unsigned char viridis[][3] = {
    {0x44, 0x01, 0x54}, {0x47, 0x2d, 0x7b}, {0x3b, 0x52, 0x8b}, {0x2c, 0x72, 0x8e}, {0x21, 0x91, 0x8c},
    {0x28, 0xae, 0x80}, {0x5e, 0xc9, 0x62}, {0xad, 0xdc, 0x30}, {0xfd, 0xe7, 0x25},
};
enum { NSTOPS = sizeof viridis / sizeof *viridis };

typedef struct {
    char hex[8];
} colour;

static colour colour_at(double t)
{
    double x = (!(t >= 0) ? 0 : t > 1 ? 1 : t) * (NSTOPS - 1); /* NaN: the bottom of the scale */
    int i = x >= NSTOPS - 1 ? NSTOPS - 2 : (int)x;
    double f = x - i;
    colour c;
    int rgb[3];
    for (int k = 0; k < 3; k++) rgb[k] = (int)lround(viridis[i][k] + f * (viridis[i + 1][k] - viridis[i][k]));
    snprintf(c.hex, sizeof c.hex, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
    return c;
}

/* ---- drawing ---------------------------------------------------------- */

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}

/* 1, 2, 5, 10, 20, 50 ... : the smallest step that keeps labels few. */
static int label_step(int nbins)
{
    static const int mantissas[] = {1, 2, 5};
    for (int step = 1;; step *= 10)
        for (int i = 0; i < 3; i++)
            if (nbins <= step * mantissas[i] * MAX_AXIS_LABELS) return step * mantissas[i];
}

static void draw_axes(FILE *f, const volume_matrix *m, int cell, int plot)
{
    const char *unit = m->bin_ranks > 1 ? " (first rank of each bin)" : "";
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\">receiver rank%s</text>\n",
            LEFT + plot / 2, TOP - 30, unit);
    fprintf(f, "<text transform=\"translate(%d,%d) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">"
               "sender rank%s</text>\n", 24, TOP + plot / 2, unit);
    int step = label_step(m->nbins);
    for (int b = 0; b < m->nbins; b += step) {
        int centre = b * cell + cell / 2;
        long long rank = (long long)b * m->bin_ranks;
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%lld</text>\n",
                LEFT + centre, TOP - 8, rank);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"10\">%lld</text>\n", LEFT - 6,
                TOP + centre + 4, rank);
    }
}

static void draw_cells(FILE *f, const volume_matrix *m, value_range r, int cell, int plot)
{
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", LEFT, TOP, plot, plot,
            no_traffic_colour);
    for (int s = 0; s < m->nbins; s++)
        for (int d = 0; d < m->nbins; d++) {
            double v = m->bytes[(size_t)s * (size_t)m->nbins + (size_t)d];
            if (v <= 0) continue;
            double t = scale_position(r, v);
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">", LEFT + d * cell,
                    TOP + s * cell, cell, cell, colour_at(t).hex);
            if (m->nbins <= TOOLTIP_MAX_BINS)
                fprintf(f, "<title>%lld -&gt; %lld: %s</title>", (long long)s * m->bin_ranks, (long long)d * m->bin_ranks,
                        text_of(m, v).text);
            fputs("</rect>\n", f);
            if (cell >= LABEL_MIN_CELL_PX)
                fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"%s\">%s</text>\n",
                        LEFT + d * cell + cell / 2, TOP + s * cell + cell / 2 + 4, t < 0.5 ? "white" : "black",
                        text_of(m, v).text);
        }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n", LEFT, TOP,
            plot, plot);
}

static void draw_legend(FILE *f, const volume_matrix *m, value_range r, int plot)
{
    int x = LEFT + plot + LEGEND_GAP, h = plot < 200 ? plot : 200;
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s (log scale)</text>\n", x, TOP - 12,
            m->seconds ? "seconds" : "bytes");
    if (r.hi > 0) { /* one gradient per panel: ids differ */
        fprintf(f, "<defs><linearGradient id=\"scale%d\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">", m->seconds);
        for (int i = 0; i < NSTOPS; i++)
            fprintf(f, "<stop offset=\"%.3f\" stop-color=\"%s\"/>", (double)i / (NSTOPS - 1),
                    colour_at((double)i / (NSTOPS - 1)).hex);
        fputs("</linearGradient></defs>\n", f);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"url(#scale%d)\" stroke=\"#444\"/>\n", x,
                TOP, LEGEND_WIDTH, h, m->seconds);
        int ticks = r.hi > r.lo ? LEGEND_TICKS : 1;
        for (int i = 0; i < ticks; i++) {
            double t = ticks > 1 ? (double)i / (ticks - 1) : 1.0;
            double v = ticks > 1 ? exp(log(r.lo) + t * (log(r.hi) - log(r.lo))) : r.hi;
            int y = TOP + (int)lround((1.0 - t) * h);
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>", x + LEGEND_WIDTH, y,
                    x + LEGEND_WIDTH + 4, y);
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>\n", x + LEGEND_WIDTH + 7, y + 4,
                    text_of(m, v).text);
        }
    }
    int y = TOP + h + 24;
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"12\" fill=\"%s\" stroke=\"#444\"/>", x, y,
            LEGEND_WIDTH, no_traffic_colour);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">no traffic</text>\n", x + LEGEND_WIDTH + 7, y + 10);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">diagonal: copies</text>\n", x, y + 30);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">inside a rank</text>\n", x, y + 44);
}

/* One map shifted right by x0, under its heading when there are two. */
static void draw_panel(FILE *f, const volume_matrix *m, int x0, int cell, int plot, int headed)
{
    fprintf(f, "<g transform=\"translate(%d,0)\">\n", x0);
    if (headed)
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">%s</text>\n", LEFT, PANEL_HEADING_Y,
                m->seconds ? "measured: seconds per replay (sender packing, receiver waiting and unpacking)"
                           : "planned: bytes per replay");
    value_range r = nonzero_range(m);
    draw_axes(f, m, cell, plot);
    draw_cells(f, m, r, cell, plot);
    draw_legend(f, m, r, plot);
    fputs("</g>\n", f);
}

static void draw(FILE *f, const volume_matrix *m, const char *title, const char *subtitle, const volume_matrix *beside)
{
    int cell = m->nbins > 0 && PLOT_PX / m->nbins > 1 ? PLOT_PX / m->nbins : 1;
    int plot = cell * m->nbins, panel = LEFT + plot + RIGHT;
    int width = panel * (beside ? 2 : 1), height = TOP + (plot > 300 ? plot : 300) + BOTTOM;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"sans-serif\" shape-rendering=\"crispEdges\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
    fputs("<text x=\"12\" y=\"24\" font-size=\"16\" font-weight=\"bold\">", f);
    xml_text(f, title);
    fputs("</text>\n<text x=\"12\" y=\"44\" font-size=\"12\">", f);
    xml_text(f, subtitle);
    fputs("</text>\n", f);
    draw_panel(f, m, 0, cell, plot, beside != NULL);
    if (beside) draw_panel(f, beside, panel, cell, plot, 1);
    fputs("</svg>\n", f);
}

/* ---- writing atomically ----------------------------------------------- */

int heatmap_svg_write(const char *path, const volume_matrix *m, const char *title, const char *subtitle,
                      const volume_matrix *beside, cli_error *e)
{
    rl_atomic_file af;
    if (rl_atomic_open(&af, path)) return cli_fail(e, CLI_FAILED, "%s", relay_last_error());
    draw(af.file, m, title, subtitle, beside);
    if (rl_atomic_commit(&af)) return cli_fail(e, CLI_FAILED, "%s", relay_last_error());
    return CLI_OK;
}
