package dev.spillway;

/** How a task uses a data object. Dependencies, reads from NVMe and write-backs all follow from it. */
public enum Privilege
{
    /** Reads the contents; the task sees a read-only buffer. Many readers of one version run concurrently. */
    READ,
    /** Overwrites the whole object; old contents are discarded and never read back from NVMe. */
    WRITE,
    /** Reads and modifies the contents. */
    READ_WRITE,
    /** Temporary space: never read from NVMe, never written back; contents are undefined afterwards. */
    SCRATCH;

    /** @return true if the task needs the object's current contents. */
    public boolean readsContents()
    {
        return this == READ || this == READ_WRITE;
    }

    /** @return true if the task produces new contents (the object becomes dirty). */
    public boolean producesContents()
    {
        return this == WRITE || this == READ_WRITE;
    }

    /** @return true if the task needs exclusive access (it orders against every other access). */
    public boolean exclusive()
    {
        return this != READ;
    }
}
