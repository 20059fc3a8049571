package dev.spillway.resilience.buddy;

/** {@link BuddyCopyTest} with every chunk put one-sided into the buddy's ring window. */
class BuddyCopyOverPutsTest extends BuddyCopyTest
{
    @Override
    BuddyCheckpoints.Stream stream()
    {
        return BuddyCheckpoints.Stream.PUTS;
    }
}
