package dev.spillway;

/** A data object: a fixed-size byte array named by a stable user tag, placed by the engine in DRAM or NVMe. */
public interface Data
{
    /** @return the stable tag given at declaration, unique within a runtime. */
    String tag();

    /** @return the size in bytes. */
    int size();
}
