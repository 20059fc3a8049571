package dev.spillway.kernels.blas;

class JavaBlasTest extends TileBlasContract
{
    private final JavaBlas blas = new JavaBlas();

    @Override
    TileBlas blas()
    {
        return blas;
    }
}
