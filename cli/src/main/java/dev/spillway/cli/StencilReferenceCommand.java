package dev.spillway.cli;

import dev.spillway.kernels.blas.JavaBlas;
import dev.spillway.kernels.stencil.Stencil;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/**
 * {@code spillway bench stencil-reference --grid … --tile … --sweeps … --steps …} (hidden): prints the checksum a
 * stencil run with those options must report, from the plain sequential reference with the whole grid in this
 * JVM's heap. {@code bench kernels} runs it in a JVM of its own, outside every cap, for grids too large to verify
 * in-process.
 */
@Command(name = "stencil-reference", hidden = true, mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench stencil-reference --grid 1024,1024,256 --tile 128 --sweeps 40 --steps 3"},
    description = "Print the reference checksum of a stencil run (the whole grid in this JVM's heap).")
final class StencilReferenceCommand implements Callable<Integer>
{
    /** The line this command prints: {@code PREFIX checksum for key} ({@link Stencil#referenceKey}). */
    static final String PREFIX = "stencil reference checksum ";

    @Mixin
    private KernelOptions options;

    @Override
    public Integer call()
    {
        final Stencil stencil = (Stencil)options.create("stencil", new JavaBlas(), Long.MAX_VALUE, 1, 1);
        System.out.println(PREFIX + stencil.referenceChecksum() + " for " + stencil.referenceKey());
        return 0;
    }
}
