import Foundation
import SegRecCommandLine
#if canImport(Glibc)
import Glibc

// Fix glibc's mmap threshold (128 KiB, its initial value). Left dynamic, glibc raises the
// threshold each time a large mmapped block is freed, after which each segment's encoder
// buffers (several MiB, allocated anew per segment) come from the heap instead and
// fragment it: peak RSS then grows with the number of segment switches (measured 276 →
// 309 MiB from 10 s to 30 s of switching every second at 1920/60 fps; flat at ~160 MiB
// with the threshold fixed). Setting it also disables the dynamic adjustment.
// (<malloc.h> is not in Swift's Glibc module, so mallopt is looked up; M_MMAP_THRESHOLD = -3.)
if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") {
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    _ = unsafeBitCast(symbol, to: Mallopt.self)(-3, 128 * 1024)
}
#endif

exit(SegRecCommand.main(Array(CommandLine.arguments.dropFirst())))
