package dev.spillway.memory;

/** Where a data object's current contents live. */
public enum Residency
{
    /** No contents yet: first touched by a WRITE, or contents discarded after SCRATCH use. */
    UNMATERIALIZED,
    /** Contents only in the NVMe tier. */
    IN_NVM,
    /** A read from NVMe (or a fresh allocation) is in flight. */
    TO_MEM,
    /** Contents in a DRAM buffer. */
    IN_MEM,
    /** A write-back to NVMe is in flight; the DRAM buffer is still held. */
    TO_NVM
}
