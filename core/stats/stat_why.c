/* SPDX-License-Identifier: MIT */
/*
 * stat_why: the reasons an agreement statistic is undefined, the `why` of
 * a struct agree_stat or agree_ci (declared in stat_int.h).  Defined once,
 * so that stat_*.c may compare a `why` by address.
 */
#include "core/stats/stat_int.h"

const char WHY_NO_ITEMS[] = "no items";
const char WHY_PE1[] =
	"expected agreement is 1: both annotators used a single code";
const char WHY_PE1_W[] =
	"expected agreement is 1: the weights make every pair of codes agree";
const char WHY_SE0[] = "se0 is 0: one annotator used a single code";
const char WHY_SE0_ZERO[] = "se0 is 0";
const char WHY_ONE_CODE[] = "needs at least two codes";
const char WHY_ALL_WEIGHTS_1[] =
	"chance agreement is 1: every weight is 1";
const char WHY_NO_PAIRABLE[] = "no unit has two values";
const char WHY_DE0[] =
	"expected disagreement is 0: every value is the same";
const char WHY_CODE_UNUSED[] = "neither annotator used this code";
const char WHY_CODE_EVERYWHERE[] =
	"both annotators used this code on every item";
const char WHY_NO_RATED[] = "no item has two ratings";
const char WHY_FLEISS_PE1[] =
	"expected agreement is 1: every rating is the same code";
const char WHY_FLEISS_M[] =
	"z needs the same number of ratings on every item";
const char WHY_FLEISS_VAR[] = "the null variance is not positive";
const char WHY_CODE_NO_RATING[] = "no rating used this code";
const char WHY_CODE_ALL_RATINGS[] = "every rating used this code";
const char WHY_PAIR_UNDEF[] =
	"kappa is undefined for some pair of annotators";
const char WHY_PAIR_EMPTY[] =
	"some pair of annotators has no item in common";
const char WHY_NO_CODE_KAPPA[] = "no code has a defined kappa";
const char WHY_CONSTANT[] =
	"one annotator used a single code on every item";
const char WHY_NO_COMMON[] =
	"the two annotators used no code in common";
const char WHY_SE_IS0[] =
	"the standard error is 0, an interval of no width";
const char WHY_BOOT_DEGEN[] =
	"half of the bootstrap resamples or more are degenerate";
const char WHY_BCA_SIDE[] =
	"BCa: every bootstrap resample lies on one side of the estimate";
const char WHY_BCA_ACCEL[] =
	"BCa: the acceleration is too large for this interval";
const char WHY_PERFECT_PE[] =
	"chance agreement is 1: no lower bound";
const char WHY_CODE_NEVER[] = "one annotator never chose this code";
const char WHY_CODE_ALWAYS[] =
	"one annotator chose this code on every item";
const char WHY_BOOT_FLAT[] =
	"every bootstrap sample gives the same value";
const char WHY_SE_BAD[] = "standard error is negative or not finite";
const char WHY_COEF_BAD[] = "coefficient is outside [-1, 1]";
