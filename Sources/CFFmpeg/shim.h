// C shim over Debian's FFmpeg 5.1 for segrec: only what Swift cannot import directly
// (function-like macros). Everything else is used straight from the FFmpeg headers.
#ifndef SEGREC_CFFMPEG_SHIM_H
#define SEGREC_CFFMPEG_SHIM_H

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <linux/falloc.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <malloc.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavformat/avformat.h>
#include <libavdevice/avdevice.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>

/// Loads libavdevice (the shared library of the headers' major version, e.g.
/// `libavdevice.so.59` for FFmpeg 5.1) and registers its devices (`avdevice_register_all`).
/// libavdevice is loaded on first use, not linked: linked, its ~200 dependent libraries (X11,
/// SDL, PulseAudio, OpenAL...) were mapped into every segrec process, 18 MiB of resident
/// memory before the first frame. Returns 1 when the devices are registered, 0 when the
/// library or its symbol is missing (`dlerror()` says why).
static inline int segrec_register_devices(void) {
    void *library = dlopen("libavdevice.so." AV_STRINGIFY(LIBAVDEVICE_VERSION_MAJOR), RTLD_NOW | RTLD_GLOBAL);
    if (!library) return 0;
    void (*register_all)(void) = (void (*)(void))dlsym(library, "avdevice_register_all");
    if (!register_all) return 0;
    register_all();
    return 1;
}

/// AVERROR(EAGAIN): "output is not available in this state, send new input".
static inline int segrec_averror_eagain(void) { return AVERROR(EAGAIN); }
/// AVERROR_EOF: end of file / the codec has been fully flushed.
static inline int segrec_averror_eof(void) { return AVERROR_EOF; }
/// AVERROR(ENOENT): no such file or directory.
static inline int segrec_averror_enoent(void) { return AVERROR(ENOENT); }
/// AVERROR(ENOSPC): no space left on device.
static inline int segrec_averror_enospc(void) { return AVERROR(ENOSPC); }
/// Appends a chapter to `s` before its header is written, as libavformat's own demuxers
/// and `ffmpeg -map_chapters` make them (`avpriv_new_chapter` is private): `id`, its
/// `time_base`, `start` and `end` in it, and the `title` tag. `avformat_free_context` frees
/// it. Returns 0 or a negative AVERROR.
static inline int segrec_add_chapter(AVFormatContext *s, int64_t id, AVRational time_base, int64_t start, int64_t end, const char *title) {
    AVChapter *chapter = av_mallocz(sizeof(AVChapter));
    if (!chapter) return AVERROR(ENOMEM);
    chapter->id = id;
    chapter->time_base = time_base;
    chapter->start = start;
    chapter->end = end;
    int ret = av_dict_set(&chapter->metadata, "title", title, 0);
    if (ret >= 0) ret = av_dynarray_add_nofree(&s->chapters, (int *)&s->nb_chapters, chapter);
    if (ret < 0) {
        av_dict_free(&chapter->metadata);
        av_free(chapter);
    }
    return ret;
}

/// AVERROR_INVALIDDATA: invalid data found when processing input.
static inline int segrec_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
/// AVERROR(e) for any errno value `e`.
static inline int segrec_averror_from_errno(int e) { return AVERROR(e); }
/// AVUNERROR(code): the errno value behind an AVERROR(errno) code.
static inline int segrec_errno_from_averror(int code) { return AVUNERROR(code); }
/// AV_NOPTS_VALUE: undefined timestamp.
static inline int64_t segrec_av_nopts_value(void) { return AV_NOPTS_VALUE; }

/// AVERROR(ENOMEM): out of memory.
static inline int segrec_averror_enomem(void) { return AVERROR(ENOMEM); }
/// AVERROR(EINVAL): invalid argument.
static inline int segrec_averror_einval(void) { return AVERROR(EINVAL); }
/// AVERROR(EEXIST): file exists.
static inline int segrec_averror_eexist(void) { return AVERROR(EEXIST); }
/// AVERROR_ENCODER_NOT_FOUND: no encoder with that name is compiled in.
static inline int segrec_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
/// AVERROR_DECODER_NOT_FOUND: no decoder for that codec is compiled in.
static inline int segrec_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
/// AVERROR_STREAM_NOT_FOUND: the file has no stream of the requested type.
static inline int segrec_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
/// AVERROR_DEMUXER_NOT_FOUND: no demuxer with that name is compiled in.
static inline int segrec_averror_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
/// MKTAG(a, b, c, d): a little-endian FourCC such as 'hvc1'.
static inline unsigned int segrec_mktag(char a, char b, char c, char d) { return MKTAG(a, b, c, d); }

/// Fixes glibc's mmap threshold at `bytes` (mallopt(M_MMAP_THRESHOLD)); setting it also
/// turns off glibc's dynamic raising of the threshold. Returns mallopt's result (1 = ok).
static inline int segrec_fix_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
/// Sets glibc's trim threshold (mallopt(M_TRIM_THRESHOLD)): free memory at the top of a heap
/// is returned to the kernel only beyond `bytes`. Returns mallopt's result (1 = ok).
static inline int segrec_set_trim_threshold(int bytes) { return mallopt(M_TRIM_THRESHOLD, bytes); }
/// Caps glibc's malloc arenas at `count` (mallopt(M_ARENA_MAX), as MALLOC_ARENA_MAX does):
/// threads started after the call share the existing arenas. Returns mallopt's result (1 = ok).
static inline int segrec_set_arena_max(int count) { return mallopt(M_ARENA_MAX, count); }

// --- av_log levels and AVIO interrupt ---
/// AVERROR_EXIT: "immediate exit requested" (an AVIOInterruptCB returned non-zero).
static inline int segrec_averror_exit(void) { return AVERROR_EXIT; }
/// The av_log levels segrec sorts FFmpeg's lines by (macros Swift imports as plain ints).
static inline int segrec_av_log_quiet(void) { return AV_LOG_QUIET; }
static inline int segrec_av_log_error(void) { return AV_LOG_ERROR; }
static inline int segrec_av_log_warning(void) { return AV_LOG_WARNING; }
static inline int segrec_av_log_info(void) { return AV_LOG_INFO; }

/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: starts writeback of the dirty pages in
/// [offset, offset + length) without waiting for it (glibc declares it only under
/// _GNU_SOURCE). Returns 0 or -1 with errno.
static inline int segrec_start_writeback(int fd, int64_t offset, int64_t length) {
    return (int)syscall(SYS_sync_file_range, fd, (off_t)offset, (off_t)length, 2 /* SYNC_FILE_RANGE_WRITE */);
}
/// fallocate(2) (glibc declares it only under _GNU_SOURCE, which Swift's Glibc module does
/// not set): reserves (`keep_size`: FALLOC_FL_KEEP_SIZE, the size stays) or releases
/// (`punch`: FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE) the blocks of [offset, offset + length).
/// Returns 0, or -1 with errno set (EOPNOTSUPP where the file system cannot).
static inline int segrec_fallocate(int fd, int punch, int64_t offset, int64_t length) {
    int mode = punch ? (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE) : FALLOC_FL_KEEP_SIZE;
    return (int)syscall(SYS_fallocate, fd, mode, (off_t)offset, (off_t)length);
}

// Swift's `sending` (SE-0430) on a C result: the value shares no mutable state with the
// arguments, so region-based isolation may hand it to another isolation domain.
#define SEGREC_SENDING __attribute__((swift_attr("sending")))

/// A new AVFrame holding new references (`av_buffer_ref`) to `src`'s `buf`s and only its
/// picture: `format`, `width` x `height` (at most `src`'s: a crop to the top-left corner),
/// `data` and `linesize`; no timestamps, side data or metadata. NULL when `src` has
/// `extended_buf` or no `buf[0]`, or on ENOMEM.
///
/// Swift sees the result as `sending`: it shares no mutable state with `src`. AVBuffer
/// reference counts are atomic, and FFmpeg writes into a buffer only when it holds the only
/// reference (`av_buffer_is_writable`, `av_frame_make_writable`, decoders' `reget_buffer`
/// copying a frame someone else references), so the planes stay as they are while this
/// frame references them, whichever thread reads them.
static inline AVFrame *_Nullable segrec_av_frame_ref_picture(const AVFrame *_Nonnull src, int width, int height) SEGREC_SENDING {
    if (src->extended_buf || !src->buf[0] || width > src->width || height > src->height) return NULL;
    AVFrame *dst = av_frame_alloc();
    if (!dst) return NULL;
    for (int i = 0; i < AV_NUM_DATA_POINTERS && src->buf[i]; i++) {
        dst->buf[i] = av_buffer_ref(src->buf[i]);
        if (!dst->buf[i]) {
            av_frame_free(&dst);
            return NULL;
        }
    }
    for (int i = 0; i < AV_NUM_DATA_POINTERS; i++) {
        dst->data[i] = src->data[i];
        dst->linesize[i] = src->linesize[i];
    }
    dst->format = src->format;
    dst->width = width;
    dst->height = height;
    return dst;
}

/// A new packet that takes over `src`'s data and properties (`av_packet_move_ref`), leaving
/// `src` blank: shares nothing with any Swift value (hence `sending`). NULL without memory.
static inline AVPacket *_Nullable segrec_av_packet_moved(AVPacket *_Nonnull src) SEGREC_SENDING {
    AVPacket *dst = av_packet_alloc();
    if (dst) av_packet_move_ref(dst, src);
    return dst;
}

/// A new reference to `src`'s data with a copy of its properties (`av_packet_clone`),
/// shared with no Swift value (hence `sending`). NULL without memory.
static inline AVPacket *_Nullable segrec_av_packet_referenced(const AVPacket *_Nonnull src) SEGREC_SENDING { return av_packet_clone(src); }

/// A copy of `src` (`avcodec_parameters_copy`) whose extradata is `extradata` (`size` bytes,
/// padded) when `size` >= 0, shared with no Swift value (hence `sending`). NULL on failure.
static inline AVCodecParameters *_Nullable segrec_codecpar_copied(const AVCodecParameters *_Nonnull src, const uint8_t *_Nullable extradata, int size)
    SEGREC_SENDING {
    AVCodecParameters *dst = avcodec_parameters_alloc();
    if (!dst) return NULL;
    if (avcodec_parameters_copy(dst, src) < 0) {
        avcodec_parameters_free(&dst);
        return NULL;
    }
    if (size < 0) return dst;
    av_freep(&dst->extradata);
    dst->extradata_size = 0;
    if (size == 0 || !extradata) return dst;
    dst->extradata = av_mallocz((size_t)size + AV_INPUT_BUFFER_PADDING_SIZE);
    if (!dst->extradata) {
        avcodec_parameters_free(&dst);
        return NULL;
    }
    memcpy(dst->extradata, extradata, (size_t)size);
    dst->extradata_size = size;
    return dst;
}

// (the av_log callback itself is real C: the CSegRecLog target)

#endif
