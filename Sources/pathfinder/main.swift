import Foundation
import PathfinderCLI

exit(await Pathfinder.main(Array(CommandLine.arguments.dropFirst()), console: .standard))
