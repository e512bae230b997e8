package sparkpersist.cluster

import java.util.Locale

import sparkpersist.errors.PersistErrors

/**
 * A space-filling curve: a bijection between the cells of an n-dimensional grid of `2^bits` cells
 * per side and the positions `0 until 2^(n * bits)` along the curve. Rows sorted by their cell's
 * position and cut into parts give each part a small box of the grid, so each part covers a narrow
 * range of every dimension. Positions fit a non-negative long: `n * bits <= 63`.
 */
sealed trait Curve {
  def name: String

  /** The position of the cell `coords` (each in `0 until 2^bits`; `coords` is left as it was). */
  def position(coords: Array[Int], bits: Int): Long
}

object Curve {
  val All: Seq[Curve] = Seq(Hilbert, ZOrder)

  /** The curve named `name` (`hilbert` or `zorder`, any case), or an error naming both. */
  def named(name: String): Curve = All.find(_.name == name.trim.toLowerCase(Locale.ROOT)).getOrElse(
    throw PersistErrors.invalidOption(s"Unknown space-filling curve '$name'", s"use ${All.map(_.name).mkString(" or ")}."))

  /** Bits per dimension for `n` dimensions: as many as a long holds, at most 16. */
  def bitsFor(n: Int): Int = {
    require(n >= 1, "a curve has at least one dimension")
    math.min(16, 63 / n)
  }

  /** The bits of `x` interleaved, most significant first: bit j of `x(i)` lands at `j * n + (n - 1 - i)`. */
  private[cluster] def interleave(x: Array[Int], bits: Int): Long = {
    val n = x.length
    var out = 0L
    var j = bits - 1
    while (j >= 0) {
      var i = 0
      while (i < n) {
        out = (out << 1) | ((x(i) >>> j) & 1)
        i += 1
      }
      j -= 1
    }
    out
  }

  private[cluster] def check(coords: Array[Int], bits: Int): Unit = {
    require(bits >= 1 && coords.length * bits <= 63, s"${coords.length} dimensions of $bits bits do not fit a long")
    require(coords.forall(c => c >= 0 && (bits == 31 || c < (1 << bits))), s"a coordinate is outside 0 until 2^$bits")
  }
}

/**
 * Z-order (Morton order): the coordinates' bits interleaved. Cheap; its boxes are as small as
 * Hilbert's on average, but consecutive positions jump across the grid at every power of two.
 */
case object ZOrder extends Curve {
  val name = "zorder"

  def position(coords: Array[Int], bits: Int): Long = {
    Curve.check(coords, bits)
    Curve.interleave(coords, bits)
  }
}

/**
 * The Hilbert curve in n dimensions: consecutive positions are neighbouring cells, so a range of
 * positions is a more compact region than Z-order's. Computed by J. Skilling's transform
 * ("Programming the Hilbert curve", AIP Conf. Proc. 707, 2004): the coordinates are turned into
 * the curve's transposed index, whose interleaved bits are the position.
 */
case object Hilbert extends Curve {
  val name = "hilbert"

  def position(coords: Array[Int], bits: Int): Long = {
    Curve.check(coords, bits)
    val x = coords.clone()
    val n = x.length
    // Undo the excess work of the inverse transform: from the top bit down, invert or exchange low bits.
    var q = 1 << (bits - 1)
    while (q > 1) {
      val p = q - 1
      var i = 0
      while (i < n) {
        if ((x(i) & q) != 0) x(0) ^= p
        else {
          val t = (x(0) ^ x(i)) & p
          x(0) ^= t
          x(i) ^= t
        }
        i += 1
      }
      q >>>= 1
    }
    // Gray encode.
    var i = 1
    while (i < n) {
      x(i) ^= x(i - 1)
      i += 1
    }
    var t = 0
    q = 1 << (bits - 1)
    while (q > 1) {
      if ((x(n - 1) & q) != 0) t ^= q - 1
      q >>>= 1
    }
    i = 0
    while (i < n) {
      x(i) ^= t
      i += 1
    }
    Curve.interleave(x, bits)
  }
}
