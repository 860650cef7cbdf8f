// segrec's av_log callback: the one piece of real C in segrec. Swift cannot take a
// va_list in a @convention(c) function, so this formats each FFmpeg log line in C and
// hands the finished line to Swift.
#ifndef SEGREC_LOG_H
#define SEGREC_LOG_H

/// Defined in Swift (`@_cdecl` in SegRecMedia's FFmpegLog.swift): receives each FFmpeg log
/// line, formatted by av_log_format_line2 (FFmpeg's own "[context @ 0x…] " prefix
/// included), with its av_log level.
void segrec_ffmpeg_log_line(int level, const char *line);

/// Routes every av_log line at or below av_log_get_level() to segrec_ffmpeg_log_line
/// (av_log_set_callback).
void segrec_install_av_log_callback(void);

#endif
