import CFFmpeg

/// Process-wide allocator settings for long recordings.
package enum AllocatorTuning {
    /// Fixes glibc's mmap threshold at its initial 128 KiB (`mallopt(M_MMAP_THRESHOLD)`).
    ///
    /// Left dynamic, glibc raises the threshold each time a large mmapped block is freed;
    /// after that, each segment's encoder buffers (several MiB, allocated anew per segment)
    /// come from the heap and fragment it, so peak RSS grows with the number of segment
    /// switches (measured 276 → 309 MiB from 10 s to 30 s of switching every second at
    /// 1920/60 fps; flat at ~160 MiB with the threshold fixed). Call once at startup.
    /// - Returns: true when glibc accepted the setting.
    @discardableResult package static func fixMmapThreshold(bytes: Int32 = 128 * 1024) -> Bool { segrec_fix_mmap_threshold(bytes) == 1 }

    /// One malloc arena for the whole process (`mallopt(M_ARENA_MAX, 1)`, as
    /// `MALLOC_ARENA_MAX=1` does).
    ///
    /// The capture queue is a serial dispatch queue whose jobs run on whichever worker
    /// thread is free, and glibc gives each thread an arena of its own: the demuxed packets
    /// of a file (3 MiB each at 1080p yuv420p) were then allocated from two to four arenas
    /// in turn, each keeping its own freed blocks (and a per-thread arena's 64 MiB heap is
    /// unmapped once empty), so a 300-frame 1080p recording faulted in 25 000–60 000 pages
    /// against ffmpeg's 7 800; from one arena, 14 000–17 000. Most small allocations are
    /// served by each thread's tcache without the arena's lock. Call at startup, before any
    /// other thread allocates: a thread keeps the arena it first allocated from.
    /// - Returns: true when glibc accepted the setting.
    @discardableResult package static func useOneArena() -> Bool { segrec_set_arena_max(1) == 1 }

    /// For reading a file (`record --source FILE` passed through): serves blocks up to
    /// 32 MiB from the heap (`M_MMAP_THRESHOLD`) and keeps up to 256 MiB of freed memory
    /// there (`M_TRIM_THRESHOLD`), both fixed.
    ///
    /// The demuxer allocates a fresh packet per frame (`av_get_packet`; 3 MiB at 1080p
    /// yuv420p) and frees it once decoded. With the 128 KiB threshold each packet was a new
    /// `mmap`, faulted in and zeroed page by page by `read(2)` and unmapped again: ~880 page
    /// faults per 1080p frame, about 10 % of the CPU time (measured 264 000 faults for 300
    /// frames against ffmpeg's 7 600). From the heap, each packet reuses the block the
    /// previous one freed (26 000 faults). The cost is the fragmentation the mmap threshold
    /// otherwise avoids when encoders of different sizes come and go: a file switches size
    /// rarely (the synthetic source, which switches every second in the benchmark, keeps
    /// ``fixMmapThreshold(bytes:)``'s setting). Call before the first packet is read.
    /// - Returns: true when glibc accepted both settings.
    @discardableResult package static func keepLargeBlocksForReuse() -> Bool {
        segrec_fix_mmap_threshold(32 << 20) == 1 && segrec_set_trim_threshold(256 << 20) == 1
    }
}
