//! `Try`: what the fallible methods (`try_for_each`, `try_reduce`, `try_fold`, ...) accept,
//! a stand-in for the standard library's unstable `std::ops::Try`. Implemented for
//! `Option`, `Result`, `ControlFlow` and the `Poll`s of those, as rayon does; the module is
//! private, so no other type can implement it.

use std::convert::Infallible;
use std::ops::ControlFlow::{self, Break, Continue};
use std::task::Poll;

/// A value that is either an output to go on with or a residual that ends the computation.
pub trait Try {
    /// The value to go on with.
    type Output;
    /// What ends the computation (rebuilt into `Self` by `from_residual`).
    type Residual;

    /// Wraps an output.
    fn from_output(output: Self::Output) -> Self;

    /// Rebuilds the failure.
    fn from_residual(residual: Self::Residual) -> Self;

    /// Go on with the output, or stop with the residual.
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = ControlFlow<B, Infallible>;

    #[inline]
    fn from_output(output: C) -> Self {
        Continue(output)
    }

    #[inline]
    fn from_residual(residual: Self::Residual) -> Self {
        match residual {
            Break(b) => Break(b),
            Continue(never) => match never {},
        }
    }

    #[inline]
    fn branch(self) -> ControlFlow<Self::Residual, C> {
        match self {
            Continue(c) => Continue(c),
            Break(b) => Break(Break(b)),
        }
    }
}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = Option<Infallible>;

    #[inline]
    fn from_output(output: T) -> Self {
        Some(output)
    }

    #[inline]
    fn from_residual(_: Self::Residual) -> Self {
        None
    }

    #[inline]
    fn branch(self) -> ControlFlow<Self::Residual, T> {
        match self {
            Some(c) => Continue(c),
            None => Break(None),
        }
    }
}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = Result<Infallible, E>;

    #[inline]
    fn from_output(output: T) -> Self {
        Ok(output)
    }

    #[inline]
    fn from_residual(residual: Self::Residual) -> Self {
        match residual {
            Err(e) => Err(e),
            Ok(never) => match never {},
        }
    }

    #[inline]
    fn branch(self) -> ControlFlow<Self::Residual, T> {
        match self {
            Ok(c) => Continue(c),
            Err(e) => Break(Err(e)),
        }
    }
}

impl<T, E> Try for Poll<Result<T, E>> {
    type Output = Poll<T>;
    type Residual = Result<Infallible, E>;

    #[inline]
    fn from_output(output: Self::Output) -> Self {
        output.map(Ok)
    }

    #[inline]
    fn from_residual(residual: Self::Residual) -> Self {
        match residual {
            Err(e) => Poll::Ready(Err(e)),
            Ok(never) => match never {},
        }
    }

    #[inline]
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output> {
        match self {
            Poll::Pending => Continue(Poll::Pending),
            Poll::Ready(Ok(c)) => Continue(Poll::Ready(c)),
            Poll::Ready(Err(e)) => Break(Err(e)),
        }
    }
}

impl<T, E> Try for Poll<Option<Result<T, E>>> {
    type Output = Poll<Option<T>>;
    type Residual = Result<Infallible, E>;

    #[inline]
    fn from_output(output: Self::Output) -> Self {
        match output {
            Poll::Ready(o) => Poll::Ready(o.map(Ok)),
            Poll::Pending => Poll::Pending,
        }
    }

    #[inline]
    fn from_residual(residual: Self::Residual) -> Self {
        match residual {
            Err(e) => Poll::Ready(Some(Err(e))),
            Ok(never) => match never {},
        }
    }

    #[inline]
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output> {
        match self {
            Poll::Pending => Continue(Poll::Pending),
            Poll::Ready(None) => Continue(Poll::Ready(None)),
            Poll::Ready(Some(Ok(c))) => Continue(Poll::Ready(Some(c))),
            Poll::Ready(Some(Err(e))) => Break(Err(e)),
        }
    }
}
