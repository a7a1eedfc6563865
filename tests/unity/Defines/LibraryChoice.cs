// Which native library the binding imports, and what it says when that library is missing, as
// compiled for one player platform (scripts/test-unity.sh compiles this with the generated
// natives and OnityNativeCheck once per set of Unity scripting defines, and runs it where no
// libonity can be loaded).
//   mono LibraryChoice.exe LABEL EXPECTED_LIB WORD...   each WORD must appear in the error
using System;
using Onity.Native;
using Onity.Unity;

static class LibraryChoice
{
    static int Main(string[] args)
    {
        string label = args[0], lib = args[1];
        int failed = 0;
        if (OnityNative.Lib != lib)
        {
            Console.WriteLine("FAIL " + label + ": DllImport library \"" + OnityNative.Lib + "\", expected \"" + lib + "\"");
            failed++;
        }
        else
        {
            Console.WriteLine("ok   " + label + ": DllImport library \"" + lib + "\"");
        }
        string problem = OnityNativeCheck.Problem();
        var missing = new System.Collections.Generic.List<string>();
        for (int i = 2; i < args.Length; i++)
        {
            if (problem == null || problem.IndexOf(args[i], StringComparison.Ordinal) < 0) missing.Add(args[i]);
        }
        if (problem == null || missing.Count > 0)
        {
            Console.WriteLine("FAIL " + label + ": the missing-library error lacks " + string.Join(", ", missing.ToArray()) + ": " + problem);
            failed++;
        }
        else
        {
            Console.WriteLine("ok   " + label + ": the missing-library error names " + string.Join(", ", args, 2, args.Length - 2));
        }
        return failed;
    }
}
