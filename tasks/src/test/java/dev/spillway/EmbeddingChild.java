package dev.spillway;

import java.nio.file.Path;

/** A minimal embedder: builds a runtime with the direct store, runs one task, prints "ran". */
final class EmbeddingChild
{
    private EmbeddingChild()
    {
    }

    public static void main(final String[] args)
    {
        try (Spillway sw = Spillway.builder().storeDir(Path.of(args[0])).dramBudget(1 << 20).workers(1).build())
        {
            final Data a = sw.data("a", 4096);
            sw.task("fill").write(a).submit(ctx -> ctx.buffer(a).putLong(0, 1)).join();
        }
        System.out.println("ran");
    }
}
