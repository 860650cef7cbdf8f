import Foundation
import SegRecCommandLine

exit(SegRecCommand.main(Array(CommandLine.arguments.dropFirst())))
