package dev.spillway.memory;

import java.util.Arrays;

/** An intrusive, unordered list of resident objects with O(1) add and remove; allocates only to grow. */
final class ResidentList
{
    final ResidentObjects owner;
    private DataObject[] items = new DataObject[64];
    private int size;

    ResidentList(final ResidentObjects owner)
    {
        this.owner = owner;
    }

    void add(final DataObject o)
    {
        if (size == items.length)
        {
            items = Arrays.copyOf(items, size * 2);
        }
        items[size] = o;
        o.listIndex(size++, this);
    }

    void remove(final DataObject o)
    {
        final int i = o.listIndex();
        final DataObject last = items[--size];
        items[i] = last;
        last.listIndex(i, this);
        items[size] = null;
        o.listIndex(-1, null);
    }

    int size()
    {
        return size;
    }

    DataObject get(final int i)
    {
        return items[i];
    }
}
