// segrec's av_log callback (see include/segrec_log.h).
#include "segrec_log.h"

#include <stdarg.h>
#include <libavutil/log.h>

static void segrec_av_log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    if (level > av_log_get_level()) return;
    char line[1024];
    int print_prefix = 1;
    if (av_log_format_line2(avcl, level, fmt, vl, line, (int)sizeof line, &print_prefix) < 0) return;
    segrec_ffmpeg_log_line(level, line);
}

void segrec_install_av_log_callback(void) { av_log_set_callback(segrec_av_log_callback); }
