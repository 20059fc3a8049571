package dev.spillway.kernels.stencil;

/**
 * The six faces of a block or of the grid. Outside the grid each face is held at its own fixed value (Dirichlet), all
 * different, so that a face mixed up with another shows in verification.
 */
enum Face
{
    WEST(0, -1, "x-", 1.0),
    EAST(0, 1, "x+", 0.0),
    SOUTH(1, -1, "y-", 0.5),
    NORTH(1, 1, "y+", 0.25),
    BELOW(2, -1, "z-", 0.75),
    ABOVE(2, 1, "z+", 0.125);

    static final Face[] ALL = values();

    /** 0, 1 or 2 for x, y or z. */
    final int axis;
    /** -1 towards lower coordinates, +1 towards higher ones. */
    final int direction;
    final String label;
    /** The fixed value of every cell just outside the grid on this face. */
    final double boundary;

    Face(final int axis, final int direction, final String label, final double boundary)
    {
        this.axis = axis;
        this.direction = direction;
        this.label = label;
        this.boundary = boundary;
    }

    Face opposite()
    {
        return ALL[ordinal() ^ 1];
    }
}
