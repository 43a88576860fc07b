/* test_report.c - what top and diff share (src/cmd/report.c): shortening
 * long names for text and Markdown tables (tf_name_short). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

/* Code points, and whether s is valid UTF-8 (no sequence cut in two). */
static size_t cps(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static int utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
		if (!n)
			return 0;
		for (int i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return 0;
		p += n;
	}
	return 1;
}

static void expect(const char *name, size_t width, const char *want)
{
	char *got = tf_name_short(name, width);
	assert_non_null(got);
	if (strcmp(got, want) != 0)
		fail_msg("width %zu: got '%s', want '%s'", width, got, want);
	free(got);
}

/* Every width from 1 to len + 1: fits, valid UTF-8, starts like the name,
 * unchanged when the name fits. */
static void expect_bounded(const char *name)
{
	size_t n = cps(name);
	for (size_t w = 1; w <= n + 1; w++) {
		char *got = tf_name_short(name, w);
		assert_non_null(got);
		if (cps(got) > w || !utf8_ok(got))
			fail_msg("width %zu: '%s' (%zu code points)", w, got, cps(got));
		if (w >= n)
			assert_string_equal(got, name);
		else if (w >= 5) /* at least one code point before "..." */
			assert_true(got[0] == name[0]);
		free(got);
	}
}

/* A CUDA kernel as PyTorch's profiler names it: 1665 characters. */
static char *cuda_kernel(void)
{
	const char *lam = "at::native::mul_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::"
			  "{lambda()#4}::operator()() const::{lambda(c10::complex<double>, c10::complex<double>)#1}";
	const char *rest = "at::detail::Array<char*, 3>, TrivialOffsetCalculator<2, unsigned int>, "
			   "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithoutCast, "
			   "at::native::memory::StoreWithoutCast";
	char f[1000], l[3000];
	snprintf(f, sizeof(f),
		 "at::native::AUnaryFunctor<c10::complex<double>, c10::complex<double>, c10::complex<double>, %s>", lam);
	snprintf(l, sizeof(l), "at::native::gpu_kernel_impl<%s>(at::TensorIteratorBase&, %s const&)::{lambda(int)#1}",
		 f, f);
	char *k = malloc(8000);
	assert_non_null(k);
	snprintf(k, 8000, "void at::native::unrolled_elementwise_kernel<%s, %s>(int, %s, %s)", l, rest, l, rest);
	return k;
}

static void test_fits(void **state)
{
	expect("aten::addmm", 80, "aten::addmm");
	expect("aten::addmm", 11, "aten::addmm");
	char *k = cuda_kernel();
	assert_int_equal(strlen(k), 1665);
	expect(k, 0, k); /* 0: never shorten */
	expect(k, 1665, k);
	free(k);
}

static void test_cuda_kernel(void **state)
{
	char *k = cuda_kernel();
	/* template arguments, then the argument list */
	expect(k, 80, "void at::native::unrolled_elementwise_kernel<...>(...)");
	expect(k, 55, "void at::native::unrolled_elementwise_kernel<...>(...)");
	/* then the middle */
	expect(k, 40, "void at::native::u...se_kernel<...>(...)");
	expect_bounded(k);
	free(k);
	const char *g = "at::native::gpu_kernel_impl<at::native::AUnaryFunctor<float, float, float, "
			"at::native::mul_kernel_cuda(at::TensorIteratorBase&)::{lambda(float, float)#1}> >"
			"(at::TensorIteratorBase&, at::native::AUnaryFunctor<float, float, float, "
			"at::native::mul_kernel_cuda(at::TensorIteratorBase&)::{lambda(float, float)#1}> const&)"
			"::{lambda(int)#1}";
	expect(g, 80, "at::native::gpu_kernel_impl<...>(...)::{lambda(int)#1}");
	expect_bounded(g);
}

static void test_levels(void **state)
{
	/* the innermost template lists go first, one level at a time */
	const char *m = "std::map<std::string, std::vector<int, std::allocator<int> > >::find(std::string const&)";
	expect(m, 88, m);
	expect(m, 80, "std::map<std::string, std::vector<...> >::find(std::string const&)");
	expect(m, 60, "std::map<...>::find(std::string const&)");
	expect(m, 30, "std::map<...>::find(...)");
	expect(m, 20, "std::map...find(...)");
	/* short lists stay ("<int>", "(int)"): eliding them would not save anything */
	expect("std::function<void (int)>::operator()(int) const", 45, "std::function<...>::operator()(int) const");
	/* operators are no brackets; the template list after "operator<< " is one */
	const char *o = "std::basic_ostream<char, std::char_traits<char> >& std::operator<< <std::char_traits<char> >"
			"(std::basic_ostream<char, std::char_traits<char> >&, char const*)";
	expect(o, 100, "std::basic_ostream<...>& std::operator<< <...>(std::basic_ostream<...>&, char const*)");
	expect(o, 60, "std::basic_ostream<...>& std::operator<< <...>(...)");
	expect("bool operator<(Foo const&, Foo const&) [clone .isra.0] something long", 50,
	       "bool operator<(...) [clone .isra.0] something long");
	expect("a->b(some, arguments, here)->c(more, arguments)", 30, "a->b(...)->c(...)");
	expect_bounded(o);
}

static void test_python_frame(void **state)
{
	const char *p = "torch/nn/modules/module.py(1501): _call_impl";
	expect(p, 80, p);
	/* "(1501)" is a line number, not an argument list: only the path is cut */
	expect(p, 30, "torch/nn/...(1501): _call_impl");
	expect(p, 40, "torch/nn/modules/m...y(1501): _call_impl");
	for (size_t w = 10; w < 44; w++) {
		char *got = tf_name_short(p, w);
		assert_null(strstr(got, "(...)"));
		assert_true(cps(got) <= w);
		free(got);
	}
	expect_bounded(p);
	/* a lambda's parameters are an argument list; its "#1" stays */
	expect("at::native::launch_kernel<at::native::AddFunctor<float>>(long)::{lambda(float, float)#1}", 60,
	       "at::native::launch_kernel<...>(...)::{lambda(...)#1}");
}

static void test_unbalanced(void **state)
{
	/* an unclosed '<' is left alone; the balanced list after it is elided */
	expect("foo<bar<int>(x, y, z, w) and then some more text that is long", 40,
	       "foo<bar<int>(...) ...e text that is long");
	/* stray brackets only: the middle is cut */
	const char *u = "a->b > c ) ( < unbalanced <<< name with stuff";
	expect(u, 30, "a->b > c ) ( ...ame with stuff");
	expect_bounded(u);
	expect_bounded("((((((((((((((((((((((((((((((((((((((((((((x");
	expect_bounded("f))))))))))))))))))))))))))))))))))))))))))>>>>>>>>>>>>>>>>");
	expect_bounded("<built-in method conv2d of type object at 0x7fb8a8b1d8c0>");
	expect_bounded("operator<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<");
	expect_bounded("operator()operator()operator()(x)operator");
}

static void test_utf8(void **state)
{
	const char *r = "функция<тип, другой_тип_данных>(аргумент, ещё_аргумент)";
	expect(r, 60, r);
	expect(r, 40, "функция<...>(аргумент, ещё_аргумент)");
	expect(r, 20, "функция<...>(...)");
	expect(r, 12, "функ...(...)");
	expect_bounded(r);
	expect_bounded("日本語の関数名<テンプレート引数>(引数一, 引数二) と長い名前");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_cuda_kernel),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_python_frame),
		cmocka_unit_test(test_unbalanced),
		cmocka_unit_test(test_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
