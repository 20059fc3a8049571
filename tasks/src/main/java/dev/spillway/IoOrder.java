package dev.spillway;

/** Order in which the IO thread admits tasks whose dependencies are met (seed 003, Table 6.1). */
public enum IoOrder
{
    /** {@code f}: first come, first served. */
    FIFO('f'),
    /** {@code a}: the task with the fewest objects to read from NVMe first; ties by submission order. */
    FEWEST_IN_NVM('a'),
    /** {@code p}: the highest user priority first; ties by submission order. */
    PRIORITY('p');

    private final char letter;

    IoOrder(final char letter)
    {
        this.letter = letter;
    }

    /** @return the policy letter of Table 6.1. */
    public char letter()
    {
        return letter;
    }
}
