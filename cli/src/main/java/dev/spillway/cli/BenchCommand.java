package dev.spillway.cli;

import picocli.CommandLine.Command;

/** {@code spillway bench}: groups the benchmarks; it needs one of its subcommands. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench kernels --quick --kernel matmul",
        "  spillway bench io --size 4g --json io.json"},
    description = "Measure the runtime and the store.",
    subcommands = {OverheadBench.class, IoBench.class, KernelsBench.class, CheckpointBench.class,
        RdmaBenchCommand.class, P2fScheduleBench.class, P2fOverheadBench.class, P2fRecoveryBench.class,
        P2fTransferBench.class, RedundancyBench.class, StencilReferenceCommand.class})
final class BenchCommand
{
}
